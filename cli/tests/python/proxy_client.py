"""Drives `toolexec proxy` with the official Python MCP client (PyPI `mcp`),
in front of `task_server.py` (a wire-level server started by a shell that
does not exec it, so the real server is a grandchild of the proxy).

    python proxy_client.py stdio TOOLEXEC SERVER
    python proxy_client.py http  TOOLEXEC SERVER

stdio: the tools' `execution` reaches the client exactly as the child
declared it (the Python client keeps no unknown fields; the Rust tests check
those on the wire); a task-required tool called
without a task gets the child's refusal back.
http: two concurrent sessions each get their own child (their own marker
and counter); a third session's child crashes without disturbing the
others; closing one session ends its child's whole tree (scanned in /proc)
while the other goes on working; shutdown ends the rest; SIGKILL of the
proxy ends its open sessions' trees.
Each check prints `ok: NAME`; the first failure raises (exit status 1).
"""

import json
import os
import subprocess
import urllib.request
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from client_checks import check, processes_with, text_of


def parents():
    """`{pid: parent pid}` of every process (as strings), from /proc/PID/stat."""
    found = {}
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                found[pid] = f.read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue
    return found


def children_of(parent):
    return [pid for pid, ppid in parents().items() if ppid == str(parent)]


def start_proxy(toolexec, server, env):
    """`toolexec proxy --http` on a free port in front of the wrapped server."""
    return subprocess.Popen(
        [toolexec, "proxy", "--http", "127.0.0.1:0", "--", *wrapper(server)],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )


def initialize_raw(url, token):
    request = urllib.request.Request(
        url,
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                 "Authorization": f"Bearer {token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=15) as response:
        return response.read().decode()


def descendants(root):
    tree = parents()
    found, frontier = [], [str(root)]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in tree.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


async def until(what, condition, seconds=15):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        await anyio.sleep(0.05)


def wrapper(server):
    # A shell that does not exec the server: it is a grandchild.
    return ["sh", "-c", f"python3 '{server}'; status=$?; exit $status"]


async def check_tools(session, where):
    tools = {t.name: t for t in (await session.list_tools()).tools}
    dumped = {name: t.model_dump(by_alias=True, exclude_none=True) for name, t in tools.items()}
    check(f"{where}: task-required tool listed with execution",
          dumped["long_job"].get("execution") == {"taskSupport": "required"}, str(dumped["long_job"]))
    check(f"{where}: task-optional tool listed with execution",
          tools["maybe_task"].execution is not None and tools["maybe_task"].execution.task_support == "optional",
          str(dumped["maybe_task"]))
    check(f"{where}: a tool without execution has none",
          "execution" not in dumped["whoami"] and "toolexec/fields" not in (dumped["whoami"].get("_meta") or {}),
          str(dumped["whoami"]))


async def over_stdio(toolexec, server):
    params = StdioServerParameters(command=toolexec, args=["proxy", "--", *wrapper(server)])
    async with stdio_client(params) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            await check_tools(session, "stdio")
            result = await session.call_tool("long_job", {})
            out = text_of(result)
            check("a task-required tool called without a task gets the child's refusal",
                  result.is_error and "-32601" in out and "long_job must be run as a task" in out, out)
            result = await session.call_tool("maybe_task", {})
            check("a task-optional tool runs as a plain call", text_of(result) == "ran without a task",
                  text_of(result))


async def over_http(toolexec, server):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    token = "proxy-client-" + str(time.time_ns())
    env = dict(os.environ, TOOLEXEC_MCP_TOKEN=token)
    proxy = start_proxy(toolexec, server, env)
    markers = []
    left_open = []
    try:
        line = proxy.stderr.readline()
        check("http listens", "serving MCP on http://" in line, line)
        url = line.strip().split("serving MCP on ", 1)[1]
        check("no child before a session", not children_of(proxy.pid), str(children_of(proxy.pid)))

        sessions = {}
        opened = {n: anyio.Event() for n in "abc"}
        close = {n: anyio.Event() for n in "abc"}
        closed = {n: anyio.Event() for n in "abc"}

        async def hold(name):
            client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with client:
                async with streamable_http_client(url, http_client=client) as streams:
                    async with ClientSession(streams[0], streams[1]) as session:
                        await session.initialize()
                        sessions[name] = session
                        opened[name].set()
                        await close[name].wait()
            # Leaving the client sent DELETE for the session.
            closed[name].set()

        async with anyio.create_task_group() as group:
            group.start_soon(hold, "a")
            group.start_soon(hold, "b")
            await opened["a"].wait()
            await opened["b"].wait()
            a, b = sessions["a"], sessions["b"]
            await check_tools(a, "http")
            ma = text_of(await a.call_tool("whoami", {}))
            mb = text_of(await b.call_tool("whoami", {}))
            markers = [ma, mb]
            check("each session has its own child", ma.startswith("task-server-") and mb.startswith("task-server-")
                  and ma != mb, f"{ma} {mb}")
            counts = [text_of(await a.call_tool("count", {})), text_of(await a.call_tool("count", {})),
                      text_of(await b.call_tool("count", {}))]
            check("each child keeps its own state", counts == ["1", "2", "1"], str(counts))
            da, db = ma.rsplit("-", 1)[1], mb.rsplit("-", 1)[1]
            # The server (its marker in argv) and its sleeper `sleep 3600.DIGITS`.
            check("both trees run", len(processes_with(da)) >= 2 and len(processes_with(db)) >= 2,
                  f"{processes_with(da)} {processes_with(db)}")

            # A third session whose child crashes: its calls fail, no other
            # session notices.
            group.start_soon(hold, "c")
            await opened["c"].wait()
            c = sessions["c"]
            mc = text_of(await c.call_tool("whoami", {}))
            dc = mc.rsplit("-", 1)[1]
            result = await c.call_tool("crash", {})
            out = text_of(result)
            check("a crashed child fails its own session's call",
                  result.is_error and "exited before answering (exit status: 3)" in out, out)
            await until("the crashed child's tree to end", lambda: not processes_with(dc))
            result = await c.call_tool("count", {})
            check("the crashed session's later calls fail", result.is_error and "MCP server" in text_of(result),
                  text_of(result))
            out = text_of(await b.call_tool("count", {}))
            check("a crash in one session leaves the others working", out == "2", out)
            close["c"].set()
            await closed["c"].wait()

            close["a"].set()
            await closed["a"].wait()
            await until("the closed session's tree to end", lambda: not processes_with(da))
            check("closing a session ends its child's tree", not processes_with(da), str(processes_with(da)))
            check("the other session's tree still runs", len(processes_with(db)) >= 2, str(processes_with(db)))
            out = text_of(await b.call_tool("count", {}))
            check("the other session still works", out == "3", out)
            close["b"].set()
        await until("the second session's tree to end", lambda: not processes_with(db))
        check("every session's tree ended", not processes_with(db), str(processes_with(db)))

        # A session left open when the proxy is told to stop.
        body = initialize_raw(url, token)
        check("a third session initializes", '"serverInfo"' in body, body)
        left_open = descendants(proxy.pid)
        check("its child runs", len(left_open) >= 3, str(left_open))
    finally:
        proxy.terminate()
        try:
            proxy.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proxy.kill()
    check("the proxy exits on SIGTERM", proxy.returncode == 143, str(proxy.returncode))
    rest = proxy.stderr.read()
    check("only the crashed child is reported as exited",
          rest.count("of an HTTP session exited") == 1 and "exited (exit status: 3)" in rest, rest)
    await until("the open session's tree to end", lambda: not [p for p in left_open if alive(p)])
    check("shutdown ends an open session's tree", not [p for p in left_open if alive(p)], str(left_open))
    for marker in markers:
        digits = marker.rsplit("-", 1)[1]
        check("nothing left after shutdown", not processes_with(digits), str(processes_with(digits)))

    # SIGKILL of the proxy with a session open: its child's tree dies too.
    proxy = start_proxy(toolexec, server, env)
    try:
        url = proxy.stderr.readline().strip().split("serving MCP on ", 1)[1]
        body = initialize_raw(url, token)
        check("a session of a second proxy initializes", '"serverInfo"' in body, body)
        tree = descendants(proxy.pid)
        check("its child runs", len(tree) >= 3, str(tree))
    finally:
        proxy.kill()
        proxy.wait(timeout=10)
    await until("the tree of a SIGKILLed proxy to end", lambda: not [p for p in tree if alive(p)])
    check("SIGKILL of the proxy ends its sessions' trees", not [p for p in tree if alive(p)], str(tree))


def main():
    mode, toolexec, server = sys.argv[1:4]
    if mode == "stdio":
        anyio.run(over_stdio, toolexec, server)
    else:
        anyio.run(over_http, toolexec, server)
    print("all ok", flush=True)


if __name__ == "__main__":
    main()
