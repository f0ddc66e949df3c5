"""The sandbox tests share the built-in tools' workspace layout: a workspace and an outside."""

from tests.tools.conftest import Layout, call_tool, layout

__all__ = ["Layout", "call_tool", "layout"]
