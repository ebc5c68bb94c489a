"""A minimal MCP server on stdio, written against the wire format with the
standard library only (no SDK), for the `toolexec proxy` tests.

    python3 task_server.py [MARKER]

At start it re-executes itself with a fresh random MARKER as its argument
(so that its own command line names it) and starts a background
`sleep 3600.DIGITS` (a grandchild of the proxy's wrapper, named by the same
digits), so that a test can find every process of this server's tree in
/proc. Its tools:

- `whoami`: the marker (one per server process).
- `count`: a per-process counter, 1, 2, 3, ...
- `long_job`: declares `execution.taskSupport: "required"` (MCP
  2025-11-25) and, like a server that only runs it as a task, refuses a
  plain `tools/call` with JSON-RPC error -32601.
- `crash`: exits with status 3 without answering.
- `maybe_task`: declares `execution.taskSupport: "optional"` and an extra
  top-level field `x-vendor`; a plain call answers `ran without a task`.
"""

import json
import os
import random
import subprocess
import sys

if len(sys.argv) < 2:
    digits = str(random.randrange(10**9, 10**10))
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), digits])

DIGITS = sys.argv[1]
MARKER = f"task-server-{DIGITS}"
subprocess.Popen(["sleep", f"3600.{DIGITS}"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

TOOLS = [
    {"name": "whoami", "description": "This server process's marker.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "count", "description": "A per-process counter.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "crash", "description": "Exits with status 3.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "long_job", "description": "Runs only as a task.",
     "inputSchema": {"type": "object", "properties": {}},
     "execution": {"taskSupport": "required"}},
    {"name": "maybe_task", "description": "Runs as a task or not.",
     "inputSchema": {"type": "object", "properties": {}},
     "execution": {"taskSupport": "optional"},
     "x-vendor": {"tier": 2}},
]

counter = 0


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def answer(request):
    global counter
    method = request.get("method")
    params = request.get("params") or {}
    if method == "initialize":
        return {"result": {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "task-server", "version": "1.0.0"},
        }}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        name = params.get("name")
        if name == "whoami":
            return {"result": text(MARKER)}
        if name == "count":
            counter += 1
            return {"result": text(str(counter))}
        if name == "crash":
            sys.exit(3)
        if name == "long_job":
            return {"error": {"code": -32601, "message": "long_job must be run as a task"}}
        if name == "maybe_task":
            return {"result": text("ran without a task")}
        return {"error": {"code": -32602, "message": f"unknown tool {name}"}}
    return {"error": {"code": -32601, "message": f"method not found: {method}"}}


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    request = json.loads(line)
    if "id" not in request or "method" not in request:
        continue  # notifications and responses
    reply = {"jsonrpc": "2.0", "id": request["id"]}
    reply.update(answer(request))
    send(reply)
