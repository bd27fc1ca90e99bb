"""mp_pool.py - a multiprocessing.Pool(fork) of 8 workers completes while the
parent's big buffers hold (nearly) every page the hugetlb pool has: no
worker dies, nothing hangs, every result is right.  Run under LD_PRELOAD of
libhugepolicy.so by test_mp_pool.sh."""
import multiprocessing as mp
import sys

BLOCK = 4 << 20
# the parent takes the pool: big buffers (malloc'ed by Python, so they are
# hugetlb blocks under pages=hugetlb) with known contents
buffers = [bytearray([i % 251]) * BLOCK for i in range(int(sys.argv[1]))]
table = {i: str(i) * 3 for i in range(20000)}


def work(i):
    # allocate, touch inherited objects (refcounts are writes), write into an
    # inherited big buffer, read it back
    b = buffers[i % len(buffers)]
    want = (i % len(buffers)) % 251
    assert b[8192] == want and b[-1] == want, "inherited buffer changed"
    b[0:4096] = bytes([7]) * 4096
    s = sum(len(table[k]) for k in range(i, i + 100))
    junk = [bytes(1000) for _ in range(1000)]
    return s + len(junk) + b[BLOCK // 2]


if __name__ == "__main__":
    ctx = mp.get_context("fork")
    with ctx.Pool(8) as pool:
        res = pool.map_async(work, range(64)).get(timeout=60)
    want = [sum(len(str(k)) * 3 for k in range(i, i + 100)) + 1000 + ((i % len(buffers)) % 251)
            for i in range(64)]
    assert res == want, "wrong results"
    assert all(b[5] == (i % 251) for i, b in enumerate(buffers)), "parent buffers changed"
    print("mp_pool: 64 tasks on 8 fork workers ok")
