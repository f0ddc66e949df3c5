"""Why the path policy refuses a write: its errors and the remedies their messages give."""

from __future__ import annotations

from seamhost.errors import SeamhostError


class PathDenied(SeamhostError, PermissionError):
    """The effective sandbox mode does not let the call write, or work, at a path."""

    path: str
    mode: str
    reason: str
    remedy: str

    def __str__(self) -> str:
        return f"{self.path}: refused in sandbox mode {self.mode}: {self.reason}; {self.remedy}"


class HardLinkedFile(SeamhostError, OSError):
    """A file with more than one name, which replacing it through one name would split."""

    path: str
    links: int

    def __str__(self) -> str:
        return (
            f"{self.path}: the file has {self.links} hard links, and replacing it would leave "
            "the other names with the old content; nothing was written. Remove the other "
            "links first, or change the file in place with a shell command"
        )


READ_ONLY_REMEDY = (
    "writes need sandbox mode workspace-write (set [sandbox] mode, or ask for it for this call)"
)
RETRY_REMEDY = "nothing was written; check the path and retry"
READ_ONLY_PATH_REMEDY = (
    "no tool may write there in a confining mode; ask for danger-full-access for this call, "
    "which a person approves"
)
HARD_LINK_REMEDY = (
    "another name of the file may lie outside the workspace; write a new file instead, "
    "or ask for danger-full-access for this call"
)


def hard_link_reason(links: int) -> str:
    return f"the file has {links} hard links"
