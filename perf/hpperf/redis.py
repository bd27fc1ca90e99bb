"""Debian's redis-server driven by redis-benchmark on loopback.

The measured process is redis-server (under the configuration: hugepolicy
run / a native library preloaded); redis-benchmark, the client, is started
by the runner beside it and is not measured.  So wall, CPU (user+sys), peak
RSS and faults in the tables are the server's.

redis-server links libjemalloc.so.2.  With libhugepolicy.so preloaded its
malloc, calloc, realloc, free and malloc_usable_size bind to hugepolicy
(LD_DEBUG=bindings); mallctl, nallocx and malloc_stats_print, which
hugepolicy does not export, still bind to Debian's libjemalloc, whose
arenas then stay idle: INFO memory's allocator_* fields describe that idle
jemalloc, not the allocator in use.  No glibc malloc is involved, so the
native-glibc peer (a glibc tunable) does not apply and is skipped.

Per pass (value size, pipeline depth, commands) redis-benchmark --csv
gives requests/s and p99 latency per command; the tables show them as
seconds for the fixed request count (n / rps: lower is faster, like every
other row) and p99 seconds.  Rates are in the JSON info.
"""
import csv
import io
import os
import shutil
import socket
import subprocess
import time

SERVER = "/usr/bin/redis-server"
# (label, value bytes, pipeline, commands)
PASSES = (("64B", 64, 16, ("SET", "GET", "LPUSH", "HSET")),
          ("4KiB", 4096, 4, ("SET", "GET")))
REQUESTS = {"quick": {"64B": 200000, "4KiB": 50000},
            "full": {"64B": 1000000, "4KiB": 200000}}
KEYSPACE = 100000          # -r: random keys, so the dataset grows (<= ~0.5 GB)
READY_S = 20


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ask(port, command, timeout=2.0):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(command.encode() + b"\r\n")
        try:
            return s.recv(256)
        except OSError:
            return b""


class Redis:
    name = "redis"
    main_metric = "redis requests"
    parse_stderr = False
    not_for = {"native-glibc": "redis-server links libjemalloc: glibc malloc and its tunable are not used"}

    def __init__(self, quality):
        self.quality = quality
        self.bench = shutil.which("redis-benchmark")
        self.port = None

    def unavailable(self):
        if not os.access(SERVER, os.X_OK):
            return "%s missing (apt-get install redis-server)" % SERVER
        if not self.bench:
            return "redis-benchmark missing (apt-get install redis-tools)"
        return None

    def metrics(self):
        out = ["redis requests"]
        for label, _, _, cmds in PASSES:
            out += ["redis %s %s" % (c, label) for c in cmds]
            out += ["redis %s %s p99" % (c, label) for c in cmds]
        return out

    def command(self, run_tag, out_dir):
        self.port = free_port()
        d = os.path.join(out_dir, "redis")
        os.makedirs(d, exist_ok=True)
        return [SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", d, "--logfile", ""]

    def hugetlb_pages(self):
        return {"quick": 160, "full": 384}[self.quality]

    def _wait_ready(self, pid):
        end = time.monotonic() + READY_S
        while time.monotonic() < end:
            if not os.path.exists("/proc/%d" % pid):
                raise RuntimeError("redis-server exited before it answered")
            try:
                if _ask(self.port, "PING").startswith(b"+PONG"):
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer PING within %d s" % READY_S)

    def driver(self, pid):
        """Run the passes against the server, shut it down, return result lines."""
        self._wait_ready(pid)
        env = {k: v for k, v in os.environ.items()
               if k not in ("LD_PRELOAD", "MALLOC_CONF", "GLIBC_TUNABLES")
               and not k.startswith(("HUGEPOLICY_", "MIMALLOC_"))}
        lines = []
        for label, size, pipe, cmds in PASSES:
            n = REQUESTS[self.quality][label]
            cmd = [self.bench, "-h", "127.0.0.1", "-p", str(self.port), "-n", str(n),
                   "-r", str(KEYSPACE), "-d", str(size), "-P", str(pipe),
                   "-t", ",".join(c.lower() for c in cmds), "--csv"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
            if r.returncode != 0:
                raise RuntimeError("redis-benchmark exit %d: %s" % (r.returncode, r.stderr.strip()[-200:]))
            for row in csv.DictReader(io.StringIO(r.stdout)):
                lines.append("redis-bench pass=%s test=%s n=%d rps=%s p99_ms=%s" % (
                    label, row["test"], n, row["rps"], row["p99_latency_ms"]))
        try:
            _ask(self.port, "SHUTDOWN NOSAVE", timeout=10)
        except OSError:
            pass
        return "\n" + "\n".join(lines) + "\n"

    def parse(self, stdout):
        metrics, info = {}, {}
        total = 0.0
        for line in stdout.splitlines():
            if not line.startswith("redis-bench "):
                continue
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            rps, key = float(f["rps"]), "redis %s %s" % (f["test"], f["pass"])
            if rps <= 0:
                raise ValueError("%s: rps %s" % (key, f["rps"]))
            metrics[key] = int(f["n"]) / rps
            metrics[key + " p99"] = float(f["p99_ms"]) / 1000.0
            info[key + " rps"] = rps
            total += metrics[key]
        metrics["redis requests"] = total
        missing = [k for k in self.metrics() if k not in metrics]
        if missing:
            raise ValueError("no result for " + ", ".join(missing))
        return metrics, info
