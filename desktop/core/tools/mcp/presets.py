"""Well-known MCP servers offered in Settings: picking one fills the server form.

No Qt here. A preset is a ready entry plus words for a person: what the server does and
what it needs (a program such as ``uvx`` or ``npx``, an account token). Values the person
must supply appear in the entry as ``<placeholder>`` text (an argument, a header value);
:func:`placeholders` finds them so a form can refuse to save until they are replaced.
Names follow nanobot 0.3.5's preset names where both offer the same server.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from desktop.core.config.schema import MCPServerConfig
from desktop.core.utils.i18n import QT_TR_NOOP

_PLACEHOLDER = re.compile(r"<[^<>\n]+>")


@dataclass(frozen=True)
class MCPPreset:
    """One well-known server.

    Attributes:
        name: The server name the form suggests (``tools.mcpServers.<name>``).
        title: Its display name.
        description: One sentence: what the agent gets.
        needs: What has to be there first (a program, an account, a token).
        docs_url: Where the server documents itself.
        entry: The entry to fill the form with (``<…>`` marks a value to type).
    """

    name: str
    title: str
    description: str
    needs: str
    docs_url: str
    entry: MCPServerConfig = field(default_factory=MCPServerConfig)

    @property
    def where(self) -> str:
        """The command line or URL, for display."""
        if self.entry.url:
            return self.entry.url
        return " ".join([self.entry.command, *self.entry.args])


def _stdio(command: str, *args: str, timeout: int = 30) -> MCPServerConfig:
    return MCPServerConfig(command=command, args=list(args), tool_timeout=timeout)


def _http(
    url: str, *, headers: dict[str, str] | None = None, timeout: int = 30, oauth: bool = False
) -> MCPServerConfig:
    return MCPServerConfig(
        type="streamableHttp",
        url=url,
        headers=headers or {},
        tool_timeout=timeout,
        auth="oauth" if oauth else None,
    )


PRESETS: tuple[MCPPreset, ...] = (
    MCPPreset(
        "time",
        QT_TR_NOOP("Time"),
        QT_TR_NOOP(
            "Current time and conversions between time zones (an official reference server)."
        ),
        QT_TR_NOOP("uv (the uvx command)"),
        "https://github.com/modelcontextprotocol/servers/tree/main/src/time",
        _stdio("uvx", "mcp-server-time"),
    ),
    MCPPreset(
        "fetch",
        QT_TR_NOOP("Fetch"),
        QT_TR_NOOP(
            "Fetches web pages and turns them into Markdown (an official reference server)."
        ),
        QT_TR_NOOP("uv (the uvx command)"),
        "https://github.com/modelcontextprotocol/servers/tree/main/src/fetch",
        _stdio("uvx", "mcp-server-fetch", timeout=60),
    ),
    MCPPreset(
        "git",
        "Git",
        QT_TR_NOOP("Reads and changes one Git repository: status, diffs, log, commits."),
        QT_TR_NOOP("uv (the uvx command) and the path of a Git repository"),
        "https://github.com/modelcontextprotocol/servers/tree/main/src/git",
        _stdio("uvx", "mcp-server-git", "--repository", "<path of the repository>"),
    ),
    MCPPreset(
        "filesystem",
        QT_TR_NOOP("Filesystem"),
        QT_TR_NOOP(
            "Reads and writes files inside the folders you list (an official reference server)."
        ),
        QT_TR_NOOP("Node.js (the npx command) and the folders to share"),
        "https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem",
        _stdio("npx", "-y", "@modelcontextprotocol/server-filesystem", "<folder>"),
    ),
    MCPPreset(
        "playwright",
        "Playwright",
        QT_TR_NOOP("Drives a local browser: open pages, click, fill forms, take snapshots."),
        QT_TR_NOOP("Node.js (the npx command)"),
        "https://playwright.dev/docs/getting-started-mcp",
        _stdio("npx", "-y", "@playwright/mcp@latest", timeout=60),
    ),
    MCPPreset(
        "github",
        "GitHub",
        QT_TR_NOOP("GitHub's hosted server: repositories, issues, pull requests."),
        QT_TR_NOOP("a GitHub personal access token (kept in the OS keyring)"),
        "https://github.com/github/github-mcp-server",
        _http(
            "https://api.githubcopilot.com/mcp/",
            headers={"Authorization": "Bearer <GitHub personal access token>"},
            timeout=60,
        ),
    ),
    MCPPreset(
        "notion",
        "Notion",
        QT_TR_NOOP("Notion's hosted server: search, read and edit your pages and databases."),
        QT_TR_NOOP("a Notion account (sign in in the browser after saving)"),
        "https://developers.notion.com/guides/mcp/get-started-with-mcp",
        _http("https://mcp.notion.com/mcp", timeout=60, oauth=True),
    ),
    MCPPreset(
        "linear",
        "Linear",
        QT_TR_NOOP("Linear's hosted server: issues, projects and comments."),
        QT_TR_NOOP("a Linear account (sign in in the browser after saving)"),
        "https://linear.app/docs/mcp",
        _http("https://mcp.linear.app/mcp", timeout=60, oauth=True),
    ),
    MCPPreset(
        "microsoft-learn",
        "Microsoft Learn",
        QT_TR_NOOP("Searches and reads Microsoft's official documentation."),
        QT_TR_NOOP("network access only"),
        "https://learn.microsoft.com/en-us/training/support/mcp",
        _http("https://learn.microsoft.com/api/mcp", timeout=45),
    ),
    MCPPreset(
        "exa",
        "Exa",
        QT_TR_NOOP("Web search and page contents through Exa's hosted server."),
        QT_TR_NOOP("network access only"),
        "https://exa.ai/mcp",
        _http("https://mcp.exa.ai/mcp", timeout=45),
    ),
)


def find_preset(name: str) -> MCPPreset | None:
    """The preset called ``name``, if any."""
    return next((preset for preset in PRESETS if preset.name == name), None)


def placeholders(values: Iterable[str]) -> list[str]:
    """The ``<…>`` placeholders left in ``values`` (arguments, header values, a URL)."""
    return [match for value in values for match in _PLACEHOLDER.findall(value)]
