/* test_surplus.c - with surplus pages allowed (hugetlb_overcommit.sh) and
 * no room in the persistent pool, pages=hugetlb still gets hugetlb pages:
 * the plan counts nr_overcommit_hugepages - surplus_hugepages as room, the
 * kernel adds surplus pages for the mapping, and the report says so.
 * usage: test_surplus BACKEND */
#include "check.h"

#include <hugepolicy.h>
#include <string.h>

static long long pool_file(const char *name)
{
	char path[128], buf[32];
	snprintf(path, sizeof path, "/sys/kernel/mm/hugepages/hugepages-2048kB/%s", name);
	FILE *f = fopen(path, "r");
	long long v = -1;
	if (f && fgets(buf, sizeof buf, f))
		v = atoll(buf);
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	const char *backend = argc > 1 ? argv[1] : "system";
	long long room = pool_file("free_hugepages") - pool_file("resv_hugepages");
	if (room >= 16)
		SKIP("the persistent pool has %lld pages free: surplus pages would not be needed", room);
	long long surp0 = pool_file("surplus_hugepages");
	size_t bytes = 32u << 20;
	unsigned char *buf = malloc(bytes);
	CHECK(buf != NULL);
	if (!buf)
		return check_result("test_surplus");
	memset(buf, 0x11, bytes);
	long long surp1 = pool_file("surplus_hugepages");
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	printf("backend %s pages %s: surplus_hugepages %lld -> %lld, Hugetlb %llu kB, pool bytes %llu\n",
	       st.backend, st.pages_effective, surp0, surp1, (unsigned long long)(st.hugetlb >> 10),
	       (unsigned long long)st.hugetlb_bytes);
	CHECK(strcmp(st.backend, backend) == 0);
	CHECK(strcmp(st.pages_effective, "hugetlb") == 0);
	CHECK(st.hugetlb >= bytes && st.hugetlb == st.hugetlb_bytes);
	CHECK(surp1 - surp0 >= (long long)(bytes >> 21) - room);
	CHECK(buf[0] == 0x11 && buf[bytes - 1] == 0x11);
	free(buf);
	return check_result("test_surplus");
}
