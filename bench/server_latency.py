"""Diagnostics latency of `jitlint server` after one edit of a ~2,000-line JAX buffer.

Starts the server over stdio in a scratch workspace, opens the buffer, waits for its first
diagnostics (the cold lint: imports, rule loading), then makes `--edits` single edits one at
a time, each waiting for the diagnostics of its version. Prints the time from sending each
`didChange` to receiving its `publishDiagnostics` (the debounce included), and the server's
own lint time from its `$/logTrace`.

    python bench/server_latency.py [--functions 200] [--edits 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def jax_file(functions: int, clean: bool = False) -> str:
    parts = ["from functools import partial\n\nimport jax\n"]
    for index in range(functions):
        parts.append(
            textwrap.dedent(
                f"""

                @partial(jax.jit, static_argnames=("axes",))
                def total{index}(x, axes):
                    if x > 0:
                        return x.sum(axis=axes)
                    return -x


                total{index}(x, axes=[0, {index}])
                """
            )
        )
    text = "".join(parts)
    if clean:  # the same code with both hazards fixed: no finding
        text = text.replace("if x > 0:", "if x.ndim:").replace("axes=[0, ", "axes=(0, ")
        text = text.replace("])\n", "))\n")
    return text


class Server:
    def __init__(self, root: Path) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jitlint", "server"],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.traces: list[str] = []

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        stream = self.process.stdout
        assert stream is not None
        length = 0
        while (line := stream.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(stream.read(length))

    def wait(self, wanted: Any) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message.get("method") == "$/logTrace":
                self.traces.append(message["params"]["message"])
            if wanted(message):
                return message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=200)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--clean", action="store_true", help="a buffer with no finding")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        text = jax_file(args.functions, args.clean)
        path = root / "step.py"
        path.write_text(text)
        server = Server(root)
        server.send(
            {
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                           "trace": "messages"},
            }
        )  # fmt: skip
        server.wait(lambda m: m.get("id") == 1)
        server.send({"method": "initialized", "params": {}})
        uri = path.as_uri()
        began = time.perf_counter()
        document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        server.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
        published = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        cold = time.perf_counter() - began
        print(f"{len(text.splitlines())} lines, {len(published['params']['diagnostics'])} findings")
        print(f"first diagnostics after open (cold): {cold * 1000:.0f} ms")
        latencies = []
        for version in range(2, args.edits + 2):
            text = text.replace(f"def total{version - 2}(", f"def total{version - 2}_(")
            began = time.perf_counter()
            server.send(
                {
                    "method": "textDocument/didChange",
                    "params": {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text}],
                    },
                }
            )
            server.wait(
                lambda m, v=version: (
                    m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"].get("version") == v
                )
            )
            latencies.append(time.perf_counter() - began)
        server.send({"id": 2, "method": "shutdown", "params": None})
        server.wait(lambda m: m.get("id") == 2)
        server.send({"method": "exit", "params": None})
        server.process.wait(timeout=60)
    ms = sorted(x * 1000 for x in latencies)
    print(
        f"after one edit (warm, {len(ms)} edits): median {statistics.median(ms):.0f} ms, "
        f"min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms"
    )
    lint_times = [float(t.rsplit(" in ", 1)[1].split()[0]) for t in server.traces[1:]]
    if lint_times:
        print(f"the server's lint time (its trace): median {statistics.median(lint_times):.0f} ms")


if __name__ == "__main__":
    main()
