# Load on gpu-triage serve (after-crash scenario, 8 GPUs): 100 concurrent
# clients, then 10,000 sequential scrapes, while one client sends its
# request headers one byte a second. Every response must be complete and
# valid, the slow client must not hold anyone up, and the memory must stay
# flat (RSS after the 10,000 within 2 MiB of RSS after the first 1,000).
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/serve.sh"

start_serve after-crash --sample 0 --max-age 10m
wait_for_report
pid=$(serve_pid)
[[ -n "$pid" ]] || fail "no gpu-triage process"

"$PYTHON" - "$SERVE_PORT" "$pid" <<'PY' || fail "load test"
import http.client, socket, sys, threading, time

port, pid = int(sys.argv[1]), int(sys.argv[2])
errors = []

def rss_kib():
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

def check(resp, body):
    if resp.status != 200:
        return "status %d" % resp.status
    if int(resp.getheader("Content-Length", "-1")) != len(body):
        return "length %s != %d" % (resp.getheader("Content-Length"), len(body))
    if not body.endswith(b"\n") or b'gpu_triage_verdict{Hostname="llm-rtxpro-03",verdict="warning"} 1\n' not in body:
        return "body incomplete"
    if b"\ngpu_triage_collector_halted" not in body:
        return "serve metrics missing"
    return None

def scrape_many(n, timings=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(n):
        t0 = time.monotonic()
        for attempt in range(2):  # the server closes a keep-alive connection after 100
            try:
                conn.request("GET", "/metrics")
                resp = conn.getresponse()
                body = resp.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        else:
            errors.append("reconnect failed")
            return
        if timings is not None:
            timings.append(time.monotonic() - t0)
        err = check(resp, body)
        if err:
            errors.append(err)
            return
        if resp.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.close()

# The slow client: its request line and headers, one byte a second.
slow_done = threading.Event()
slow_result = []
def slowloris():
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n":
            if slow_done.is_set():
                break
            s.send(bytes([b]))
            time.sleep(1.0)
        slow_result.append("sent")
    except OSError as e:
        slow_result.append("closed: %s" % e)
    finally:
        s.close()
slow = threading.Thread(target=slowloris, daemon=True)
slow.start()
time.sleep(1.5)  # it is now in the middle of its request line

t0 = time.monotonic()
threads = [threading.Thread(target=scrape_many, args=(10,)) for _ in range(100)]
for t in threads: t.start()
for t in threads: t.join()
concurrent_s = time.monotonic() - t0
if errors:
    sys.exit("concurrent: %d errors, first: %s" % (len(errors), errors[0]))

timings = []
scrape_many(1000, timings)
rss_before = rss_kib()
scrape_many(9000, timings)
rss_after = rss_kib()
slow_done.set()
if errors:
    sys.exit("sequential: %d errors, first: %s" % (len(errors), errors[0]))
timings.sort()
p50, p99, worst = timings[len(timings) // 2], timings[int(len(timings) * .99)], timings[-1]
print("100 clients x 10 scrapes: %.1f s; 10,000 sequential: p50 %.1f ms, p99 %.1f ms, max %.1f ms;"
      " RSS %d -> %d KiB" % (concurrent_s, p50 * 1e3, p99 * 1e3, worst * 1e3, rss_before, rss_after))
if len(timings) != 10000:
    sys.exit("only %d sequential scrapes" % len(timings))
if worst > 1.0:
    sys.exit("a scrape took %.2f s while the slow client was sending" % worst)
if rss_after - rss_before > 2048:
    sys.exit("RSS grew by %d KiB over 9,000 scrapes" % (rss_after - rss_before))
PY
