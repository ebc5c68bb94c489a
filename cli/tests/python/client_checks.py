"""What the Python MCP client tests share: a check that prints `ok: NAME`,
the text of a tool result, and the live processes whose command line names
a marker (scanned in /proc). Imported by mcp_client.py and proxy_client.py
(both are run as scripts, so this directory is on sys.path).
"""

import os


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"{name}: {detail}")
    print(f"ok: {name}", flush=True)


def text_of(result):
    return "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")


def processes_with(marker):
    """`PID: CMDLINE` of every process whose command line contains `marker`.
    Zombies are left out (a zombie's cmdline reads empty anyway; the state
    is checked too for a process caught between exit and reaping)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmd and state != "Z":
            found.append(f"{pid}: {cmd}")
    return found
