#!/bin/sh
# test_pagesize_pool.sh PAGES CMD... - run CMD with PAGES more 1 GiB pages in
# the 1 GiB hugetlb pool (/sys/kernel/mm/hugepages/hugepages-1048576kB), then
# give back exactly what was added, on every exit path.  A 1 GiB page is a
# real GiB of RAM: never left in the pool.  Exit 77 (skip) with the reason
# when the kernel has no 1 GiB pool, the pool cannot be written (not root),
# or the kernel finds no GiB of contiguous memory for a page.
set -u
pages=$1
shift
d=/sys/kernel/mm/hugepages/hugepages-1048576kB
f=$d/nr_hugepages
[ -d "$d" ] || { echo "SKIP: this kernel has no 1 GiB hugetlb pool ($d)"; exit 77; }
old=$(cat "$f" 2>/dev/null) || { echo "SKIP: $f unreadable"; exit 77; }
added=0
# give back what we added, never an absolute value: the pool is system-wide
give_back() {
	[ "$added" -gt 0 ] || return 0
	now=$(cat "$f")
	back=$((now - added))
	[ "$back" -lt 0 ] && back=0
	echo "$back" > "$f"
	added=0
}
trap 'give_back; exit 130' INT TERM HUP
trap 'give_back' EXIT
if [ "$pages" -gt 0 ]; then
	if ! (echo $((old + pages)) > "$f") 2>/dev/null; then
		echo "SKIP: cannot write $f (need root): $(id -un)"
		exit 77
	fi
	got=$(cat "$f")
	added=$((got - old))
	[ "$added" -lt 0 ] && added=0
	if [ "$added" -lt "$pages" ]; then
		echo "SKIP: asked for $pages more 1 GiB pages, the kernel gave $added (no GiB of contiguous memory free)"
		exit 77
	fi
fi
echo "1 GiB pool: nr_hugepages $(cat "$f"), free $(cat "$d/free_hugepages"), resv $(cat "$d/resv_hugepages") (added $added)"
"$@"
rc=$?
give_back
echo "1 GiB pool after: nr_hugepages $(cat "$f"), free $(cat "$d/free_hugepages")"
exit $rc
