"""A job writing samples, for the `gpu-triage watch --data` tests.

  data_writer.py DIR baseline N       N old samples, one each 10 s, the
                                      newest a minute ago (the job's pace
                                      before the restart: 6 a minute)
  data_writer.py DIR write FIRST COUNT EVERY_S BAD,BAD...
                                      COUNT new samples from FIRST, one each
                                      EVERY_S seconds; the BAD ones are
                                      damaged as a crash leaves them (cut
                                      short, or a 4 KiB block zeroed). Each
                                      file is written whole, then closed;
                                      DIR/written.log gets "<index> <unix s>"
                                      once it is closed.
"""
import gzip
import os
import random
import sys
import time


def sample(path, i, damage=None):
    rng = random.Random(i)
    data = gzip.compress(bytes(rng.getrandbits(8) for _ in range(40000)))
    if damage == "cut":
        data = data[: len(data) // 2]
    elif damage == "zero":
        at = len(data) // 2 // 4096 * 4096
        data = data[:at] + bytes(4096) + data[at + 4096:]
    with open(path, "wb") as f:
        f.write(data)


def main():
    d, mode = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    if mode == "baseline":
        n = int(sys.argv[3])
        newest = time.time() - 60
        for i in range(n):
            p = os.path.join(d, f"sample_{i:05d}.gz")
            sample(p, i)
            t = newest - 10 * (n - 1 - i)
            os.utime(p, (t, t))
        return
    first, count, every = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    bad = {int(x): ("cut" if k % 2 == 0 else "zero")
           for k, x in enumerate(sys.argv[6].split(",")) if x}
    for i in range(first, first + count):
        sample(os.path.join(d, f"sample_{i:05d}.gz"), i, bad.get(i))
        with open(os.path.join(d, "..", "written.log"), "a") as log:
            log.write(f"{i} {time.time():.3f}\n")
        time.sleep(every)


main()
