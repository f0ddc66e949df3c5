"""What can go wrong with a remote A2A agent, always naming the agent."""

from __future__ import annotations

from seamhost.errors import SeamhostError


class A2aAgentError(SeamhostError, RuntimeError):
    """A remote A2A agent could not be reached, or what it served is not valid A2A."""

    agent: str
    problem: str

    def __str__(self) -> str:
        return f'A2A agent "{self.agent}": {self.problem}'
