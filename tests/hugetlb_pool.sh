#!/bin/sh
# hugetlb_pool.sh PAGES CMD... - run CMD with PAGES more 2 MiB pages in the
# hugetlb pool (/proc/sys/vm/nr_hugepages), then give those pages back.
# Exit 77 (skip) with the reason when the pool cannot be set.
set -u
pages=$1
shift
f=/proc/sys/vm/nr_hugepages
old=$(cat "$f" 2>/dev/null) || { echo "SKIP: $f unreadable"; exit 77; }
want=$((old + pages))
if ! (echo "$want" > "$f") 2>/dev/null; then
	echo "SKIP: cannot write $f (need root): $(id -un)"
	exit 77
fi
got=$(cat "$f")
# give back what we added, never an absolute value: the pool is system-wide
# and someone else may change it meanwhile
give_back() {
	now=$(cat "$f")
	back=$((now - $1))
	[ "$back" -lt 0 ] && back=0
	echo "$back" > "$f"
}
if [ "$got" -lt "$want" ]; then
	give_back $((got - old))
	echo "SKIP: asked for $pages more 2 MiB pages, the kernel gave $((got - old)) (memory too fragmented)"
	exit 77
fi
trap 'give_back $pages; exit 130' INT TERM HUP
# pages a process that just ended held come back to the pool a moment
# later (the kernel frees them from a workqueue): wait up to 3 s until the
# pool shows the pages added free, so the command's start-up probe sees them
free_now() {
	awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 } END { print f - r }' /proc/meminfo
}
i=0
while [ "$(free_now)" -lt "$pages" ] && [ $i -lt 30 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$@"
rc=$?
trap - INT TERM HUP
give_back $pages
exit $rc
