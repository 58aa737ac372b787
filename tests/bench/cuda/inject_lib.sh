# inject_lib.sh - sourced by the CUDA benchmarks (collector_cost.sh, cupti_floor.sh,
# clean_timing.sh), which run on the GPU machine without renacer's CMake build: build_lib SRC
# OUT builds the injection library from inject.c source SRC into OUT with the machine's CUPTI
# (under CUDA_HOME, else /usr/local/cuda*). Needs `src`, the repository's root, set.
cuda=${CUDA_HOME:-/usr/local/cuda}
inc=$(dirname "$(find "$cuda"/ /usr/local/cuda*/ -name cupti.h 2>/dev/null | head -1)")
lib=$(dirname "$(find "$cuda"/ /usr/local/cuda*/ -name 'libcupti.so*' 2>/dev/null | head -1)")
build_lib() { # SRC OUT
	gcc -O2 -shared -fPIC -D_GNU_SOURCE -I"$inc" -I"$src/collectors/cuda" "$1" \
		"$src/collectors/cuda/clock.c" -L"$lib" -Wl,-rpath,"$lib" -lcupti -lpthread -ldl -o "$2"
}
