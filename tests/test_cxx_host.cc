// test_cxx_host.cc - a C++ host: every new/delete variant lands in
// hugepolicy's dispatch (libhugepolicy defines them all), and the standard's
// out-of-memory behaviour holds: std::bad_alloc, or nullptr for nothrow.
#include <dlfcn.h>
#include <hugepolicy.h>
#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

static int failures;
#define CHECK(c) do { if (!(c)) { std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

struct alignas(256) Wide { char bytes[300]; };

static bool from_hugepolicy(const char *sym)
{
	Dl_info info;
	void *p = dlsym(RTLD_DEFAULT, sym);
	return p && dladdr(p, &info) && info.dli_fname && std::strstr(info.dli_fname, "libhugepolicy");
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	CHECK(std::strcmp(hugepolicy_backend(), want) == 0);
	for (const char *s : { "_Znwm", "_ZdlPv", "_Znam", "_ZdaPv", "_ZdlPvm", "_ZnwmSt11align_val_t",
			       "_ZdlPvSt11align_val_t", "_ZnwmRKSt9nothrow_t" })
		CHECK(from_hugepolicy(s));

	int *one = new int(42);
	CHECK(*one == 42 && malloc_usable_size(one) >= sizeof(int));
	delete one;
	char *arr = new char[1000];
	std::memset(arr, 1, 1000);
	delete[] arr;
	Wide *w = new Wide;
	CHECK((reinterpret_cast<std::uintptr_t>(w) & 255) == 0);
	delete w;
	Wide *wa = new Wide[3];
	CHECK((reinterpret_cast<std::uintptr_t>(wa) & 255) == 0);
	delete[] wa;
	int *nt = new (std::nothrow) int[10];
	CHECK(nt != nullptr);
	delete[] nt;

	std::vector<std::string> v;
	for (int i = 0; i < 10000; i++)
		v.push_back(std::string(i % 300, 'x'));
	CHECK(v.size() == 10000 && v[299].size() == 299);
	std::vector<double> big(8u << 20);          // 64 MiB through operator new
	big.back() = 1.0;
	CHECK(big.back() == 1.0);

	bool threw = false;
	try {
		volatile std::size_t huge = SIZE_MAX / 2;
		char *p = new char[huge];
		delete[] p;
	} catch (const std::bad_alloc &) {
		threw = true;
	}
	CHECK(threw);
	volatile std::size_t huge = SIZE_MAX / 2;
	char *q = new (std::nothrow) char[huge];
	CHECK(q == nullptr);

	std::printf("test_cxx_host: %s (%d failed checks)\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
