// consumer.cc - a C++ host of an installed hugepolicy: new/delete and the
// standard containers go through hugepolicy; prints the same line as
// consumer.c.
#include <hugepolicy.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "consumer_where.h"

int main()
{
	std::vector<std::string> names;
	for (int i = 0; i < 1000; i++)
		names.push_back(std::string(40, 'a' + i % 26));
	auto big = std::make_unique<char[]>(8 << 20);
	for (size_t i = 0; i < (8u << 20); i += 4096)
		big[i] = 1;
	struct hugepolicy_stats st {};   // "struct": hugepolicy_stats is also the function
	st.size = sizeof st;
	int rc = hugepolicy_stats(&st);
	char lib[4096];
	std::printf("version=%s backend=%s pages=%s stats=%d allocated=%s lib=%s\n",
	            hugepolicy_version(), hugepolicy_backend(), hugepolicy_pages(), rc,
	            st.allocated == HUGEPOLICY_UNKNOWN ? "unknown" : st.allocated >= (8u << 20) ? "known" : "low",
	            consumer_where(lib, sizeof lib));
	return rc;
}
