#!/usr/bin/env bash
# scripts/fuzz-image.sh PNG_SRC JPEG_SRC WEBP_SRC [SECONDS] - fuzz_image with
# coverage inside the decoders (fuzz/README.md, fuzz_image).
#
# `make fuzz` links fuzz_image against Debian's shared libpng, libjpeg-turbo
# and libwebp, which carry no coverage instrumentation: libFuzzer then sees
# only rigkit's side of each call. This script compiles the decoders' own
# sources with -fsanitize=fuzzer-no-link,address,undefined (into
# build-fuzz-image/, outside the library build) and links one target per
# decoder, then runs each for SECONDS (default 600) from its committed seeds
# (fuzz/seeds-image-{png,jpeg,webp}).
#
# The sources must be the versions the native build links (Debian 12:
# libpng 1.6.39, libjpeg-turbo 2.1.5, libwebp 1.2.4), e.g. `apt-get source
# libpng1.6 libjpeg-turbo libwebp`, or the upstream tags v1.6.39, 2.1.5 and
# v1.2.4. Needs clang, cmake, zlib (zlib1g-dev).
set -euo pipefail
png=$(cd "$1" && pwd)
jpeg=$(cd "$2" && pwd)
webp=$(cd "$3" && pwd)
secs=${4:-600}
cd "$(dirname "$0")/.."
out=build-fuzz-image
mkdir -p "$out"
flags="-fsanitize=fuzzer-no-link,address,undefined -g -O1"

# libpng: its prebuilt configuration, no SIMD
mkdir -p "$out/png"
cp "$png/scripts/pnglibconf.h.prebuilt" "$out/png/pnglibconf.h"
for f in png pngerror pngget pngmem pngpread pngread pngrio pngrtran pngrutil pngset pngtrans pngwio pngwrite \
	pngwtran pngwutil; do
	clang $flags -DPNG_ARM_NEON_OPT=0 -DPNG_INTEL_SSE_OPT=0 -I"$out/png" -I"$png" -c "$png/$f.c" -o "$out/png/$f.o"
done
ar rcs "$out/png/libpng16.a" "$out"/png/*.o

CC=clang cmake -S "$jpeg" -B "$out/jpeg" -DWITH_SIMD=0 -DENABLE_SHARED=0 -DWITH_TURBOJPEG=0 -DCMAKE_BUILD_TYPE=None \
	-DCMAKE_C_FLAGS="$flags" >/dev/null
cmake --build "$out/jpeg" --target jpeg-static >/dev/null
CC=clang cmake -S "$webp" -B "$out/webp" -DWEBP_ENABLE_SIMD=OFF -DBUILD_SHARED_LIBS=OFF -DWEBP_BUILD_EXTRAS=OFF \
	-DWEBP_BUILD_ANIM_UTILS=OFF -DWEBP_BUILD_CWEBP=OFF -DWEBP_BUILD_DWEBP=OFF -DWEBP_BUILD_GIF2WEBP=OFF \
	-DWEBP_BUILD_IMG2WEBP=OFF -DWEBP_BUILD_VWEBP=OFF -DWEBP_BUILD_WEBPINFO=OFF -DWEBP_BUILD_WEBPMUX=OFF \
	-DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="$flags" >/dev/null
cmake --build "$out/webp" --target webpdecoder >/dev/null

src="fuzz/fuzz_image.c src/image/image.c src/core/core.c src/core/file_io.c"
cc="clang -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1 -std=c11"
# each target: one decoder instrumented (its headers first), the others from Debian
$cc -I"$out/png" -I"$png" -Iinclude -Isrc $src "$out/png/libpng16.a" -lz -ljpeg -lwebp -lm -o "$out/fuzz_image_png"
$cc -I"$out/jpeg" -I"$jpeg" -Iinclude -Isrc $src "$out/jpeg/libjpeg.a" -lpng16 -lwebp -lm -o "$out/fuzz_image_jpeg"
$cc -I"$webp/src" -Iinclude -Isrc $src "$out/webp/libwebpdecoder.a" -lpng16 -ljpeg -lm -lpthread -o "$out/fuzz_image_webp"

for d in png jpeg webp; do
	corpus=fuzz/corpus-image-$d
	mkdir -p "$corpus"
	cp fuzz/seeds-image-$d/* "$corpus/"
	"$out/fuzz_image_$d" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$corpus"
done
