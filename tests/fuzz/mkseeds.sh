#!/bin/sh
# mkseeds.sh SRC - (re)make the seed corpora in SRC/tests/fuzz/corpus/ from
# this machine's real files and SRC/tests/fixtures/cgroup/; vfs.h says the
# format.  The seeds are kept in git; run this again when the probe reads new
# files.  Regression inputs (crashes found and fixed) live in the same
# folders as crash-*, and this script never removes them.
set -eu
src=$1
c=$src/tests/fuzz/corpus
mkdir -p "$c/options" "$c/probe" "$c/cgroup" "$c/smaps" "$c/escape" "$c/readlines"
find "$c" -type f -name 'seed-*' -delete

# files, as "PATH\ncontent\0"; $root maps a fixture tree to /
emit() {
	for p in "$@"; do
		[ -f "$root$p" ] || continue
		printf '%s\n' "$p"
		cat "$root$p"
		printf '\0'
	done
}
thp=/sys/kernel/mm/transparent_hugepage
machine() {
	root=
	emit $thp/enabled $thp/defrag $thp/khugepaged/max_ptes_none /sys/devices/system/node/online
	for d in /sys/kernel/mm/hugepages/hugepages-*; do
		emit "$d/nr_hugepages" "$d/free_hugepages" "$d/resv_hugepages" "$d/surplus_hugepages" \
			"$d/nr_overcommit_hugepages"
	done
}
cgroups_here() {
	root=
	emit /proc/self/cgroup /proc/self/mountinfo /sys/fs/cgroup/unified/cgroup.controllers \
		/sys/fs/cgroup/cgroup.controllers
}
fixture() {
	root=$1
	(cd "$root" && find . -type f | sed 's|^\.||' | sort) | while read -r p; do emit "$p"; done
}

{ machine; cgroups_here; root=; emit /proc/self/smaps_rollup; } >"$c/probe/seed-this-machine"
{ cgroups_here; } >"$c/cgroup/seed-this-machine"
for f in "$src"/tests/fixtures/cgroup/*/; do
	n=$(basename "$f")
	fixture "$f" >"$c/cgroup/seed-$n"
	{ machine; fixture "$f"; } >"$c/probe/seed-$n"
done
{ printf '/sys/kernel/mm/transparent_hugepage/enabled\n[always] madvise never\n\0'
  printf '/sys/kernel/mm/transparent_hugepage/defrag\nalways defer defer+madvise [madvise] never\n\0'
  printf '/sys/devices/system/node/online\n0-3,5,7-8\n\0'
  printf '/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages\n18446744073709551615\n\0'
  printf '/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages\n5\n\0'
  printf '/sys/kernel/mm/hugepages/hugepages-64kB/free_hugepages\n3\n\0'
  printf '/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages\n18446744073709551615\n\0'
  printf '/proc/self/cgroup\n0::/\n\0'; } >"$c/probe/seed-variants"

root=
cat /proc/self/smaps_rollup >"$c/smaps/seed-this-machine"
printf 'x\nRss: 1 kB\nAnonHugePages:\t18446744073709551615 kB\nPrivate_Hugetlb: 4096 kB\nShared_Hugetlb:  -1 kB\n' \
	>"$c/smaps/seed-fields"

printf '\100\100plain text' >"$c/escape/seed-plain"
printf '\100\377caf\303\251 \342\202\254 \360\237\230\200 \033[2J \302\233 \177 \n\r\t\\"' >"$c/escape/seed-mixed"
printf '\005\010\355\240\200\364\220\200\200\300\257\340\200\257\342\202' >"$c/escape/seed-invalid"

cp /proc/self/mountinfo "$c/readlines/seed-mountinfo-raw"
{ printf '\040'; cat /proc/self/mountinfo; } >"$c/readlines/seed-mountinfo"
printf '\003a\nbb\nccc\ndddd\neeeee\n\nf' >"$c/readlines/seed-short-lines"
printf '\000one line\n' >"$c/readlines/seed-one"

# options: unset bits, then the values in table order (see fuzz_options.c)
printf '\000\000jemalloc\000hugetlb\0008MiB\0001G\000yes\000json\000\000inherit\000thp:never\0001\0004' \
	>"$c/options/seed-valid"
printf '\000\000bogus\0002\000-5\00099999999999999999999\000\000loud\000/tmp/x.%%p\000maybe\000\000\000' \
	>"$c/options/seed-bad"
printf '\377\377' >"$c/options/seed-unset"
printf '\000\000SYSTEM\000Auto\0004096\00016T\000OFF\000text\000\000copy' >"$c/options/seed-edges"
ls "$c"/* | wc -l
