"""A stock FastMCP 4 server with one trivial tool: the baseline our per-call overhead is measured against."""

from fastmcp import FastMCP

server = FastMCP("stock")


@server.tool()
def pwd() -> dict[str, str]:
    """Return a constant, as ck3_dir pwd does."""
    return {"home": "ROOT_REPO", "address": "ROOT_REPO:/"}


if __name__ == "__main__":
    server.run(transport="stdio", show_banner=False)
