// bench/peer_assimp_load.cpp - the speed peer: Assimp loading the same files.
//
// usage: peer_assimp_load [-n RUNS] [-c] FILE...
// Prints "assimp FILE BYTES MEDIAN_SECONDS MB_PER_S" per file, the median of
// RUNS (default 9) after one untimed warm-up run; -c: the process's CPU time
// instead of wall time (as bench_load -c). No post-processing steps
// are requested (flags 0), the cheapest import Assimp offers.
#include <assimp/Importer.hpp>
#include <assimp/scene.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <sys/stat.h>
#include <time.h>

static double proc_cpu_now()
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int runs = 9, first = 1;
	bool cpu = false;
	for (;;) {
		if (argc > first + 1 && std::strcmp(argv[first], "-n") == 0) {
			runs = std::atoi(argv[first + 1]);
			first += 2;
		} else if (argc > first && std::strcmp(argv[first], "-c") == 0) {
			cpu = true;
			first++;
		} else {
			break;
		}
	}
	if (runs < 1 || runs > 1000) runs = 9;
	int status = 0;
	for (int a = first; a < argc; a++) {
		struct stat st;
		if (stat(argv[a], &st) != 0) { status = 1; continue; }
		{
			Assimp::Importer warm;
			if (!warm.ReadFile(argv[a], 0)) {
				std::fprintf(stderr, "peer_assimp_load: %s: %s\n", argv[a], warm.GetErrorString());
				status = 1;
				continue;
			}
		}
		std::vector<double> t;
		for (int r = 0; r < runs; r++) {
			Assimp::Importer imp;
			double c0 = cpu ? proc_cpu_now() : 0.0;
			auto t0 = std::chrono::steady_clock::now();
			const aiScene *s = imp.ReadFile(argv[a], 0);
			auto t1 = std::chrono::steady_clock::now();
			double c1 = cpu ? proc_cpu_now() : 0.0;
			(void)s;
			t.push_back(cpu ? c1 - c0 : std::chrono::duration<double>(t1 - t0).count());
		}
		std::sort(t.begin(), t.end());
		double med = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
		std::printf("assimp %s %lld %.6f %.1f\n", argv[a], (long long)st.st_size, med, (double)st.st_size / med / 1e6);
		std::fflush(stdout);
	}
	return status;
}
