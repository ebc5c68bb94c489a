"""Drives `toolexec mcp` with the official Python MCP client (PyPI `mcp`).

    python mcp_client.py stdio TOOLEXEC WORKDIR SCRATCH
    python mcp_client.py http  TOOLEXEC WORKDIR SCRATCH

Over stdio the client starts toolexec itself; over HTTP this script starts
`toolexec mcp --http 127.0.0.1:0` with a token and reads the bound address
from its stderr. Each check prints `ok: NAME`; the first failure raises
(exit status 1). The secret is built at run time so that no token-like
literal is in the source.
"""

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from client_checks import check, processes_with, text_of

SECRET = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


async def exercise(session, scratch):
    init = await session.initialize()
    check("initialize", init.server_info.name == "toolexec", str(init.server_info))

    tools = await session.list_tools()
    names = sorted(t.name for t in tools.tools)
    check("list", {"read", "write", "edit", "grep", "glob", "exec"} <= set(names), str(names))

    result = await session.call_tool("exec", {"command": f"echo token={SECRET}"})
    out = text_of(result)
    check("exec with a secret is masked", "token=[REDACTED:github-token]" in out and SECRET not in out, out)

    result = await session.call_tool("exec", {"command": "seq 1 20000"})
    out = text_of(result)
    check("spill", out.startswith("Result too large (") and scratch in out, out[:300])
    path = out.split("scratch file: ", 1)[1].split("\n", 1)[0]
    result = await session.call_tool("read", {"path": path, "offset": 12345, "limit": 2})
    out = text_of(result)
    lines = out.split("\n")
    check("read the spill file", lines[:2] == [" 12345\t12345", " 12346\t12346"] and "12347\t" not in out, out)

    marker = f"{time.time_ns() % 1000000}.5"
    command = f"sleep 3{marker}"
    # Abandoning the call sends notifications/cancelled.
    with anyio.move_on_after(1.5):
        await session.call_tool("exec", {"command": command})
    deadline = time.monotonic() + 10
    while processes_with(f"sleep 3{marker}") and time.monotonic() < deadline:
        await anyio.sleep(0.05)
    check("cancel stops the exec", not processes_with(f"sleep 3{marker}"), str(processes_with(marker)))


async def over_stdio(toolexec, workdir, scratch):
    params = StdioServerParameters(
        command=toolexec, args=["mcp", "--workdir", workdir, "--scratch", scratch]
    )
    async with stdio_client(params) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await exercise(session, scratch)


def http_status(url, headers):
    request = urllib.request.Request(
        url,
        data=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


async def over_http(toolexec, workdir, scratch):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    token = "python-client-" + str(time.time_ns())
    env = dict(os.environ, TOOLEXEC_MCP_TOKEN=token)
    server = subprocess.Popen(
        [toolexec, "mcp", "--workdir", workdir, "--scratch", scratch, "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        line = server.stderr.readline()
        check("http listens", "serving MCP on http://" in line, line)
        url = line.strip().split("serving MCP on ", 1)[1]
        port = url.split(":")[2].split("/")[0]
        check("401 without the token", http_status(url, {}) == 401)
        check("401 with a wrong token", http_status(url, {"Authorization": "Bearer nope"}) == 401)
        status = http_status(url, {"Authorization": f"Bearer {token}", "Origin": f"http://evil.example:{port}"})
        check("403 on a foreign Origin", status == 403, str(status))
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with client:
            async with streamable_http_client(url, http_client=client) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await exercise(session, scratch)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    mode, toolexec, workdir, scratch = sys.argv[1:5]
    if mode == "stdio":
        anyio.run(over_stdio, toolexec, workdir, scratch)
    else:
        anyio.run(over_http, toolexec, workdir, scratch)
    print("all ok", flush=True)


if __name__ == "__main__":
    main()
