#!/usr/bin/env bash
# Checks the shader library (tests/library/shaders/), from the repository root:
#
#   tests/library/check.sh
#
# 1. every shader's whole variant set builds: `ncnn-glsl variants FILE`;
# 2. a sample (the first and the middle file of each family, in name order, and
#    every shader that tests a device macro) expanded in fp32 is plain GLSL
#    that glslang accepts: `ncnn-glsl expand FILE --mode fp32`,
#    then `glslangValidator -V --target-env vulkan1.1 -S comp`. Shaders that
#    test device macros are expanded without a device (every device macro
#    undefined: the fallback paths) and once for each description in devices/
#    (`--device-caps`: the paths those devices take).
#
# Prints each failure with the tool's output, then the totals; exits 1 if any
# check failed. NCNN_GLSL overrides the binary (default target/debug/ncnn-glsl).

set -u

BIN=${NCNN_GLSL:-target/debug/ncnn-glsl}
DIR=tests/library/shaders
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ ! -x "$BIN" ]; then
    echo "no ncnn-glsl binary at $BIN" >&2
    exit 2
fi

mapfile -t FILES < <(find "$DIR" -name '*.comp' | LC_ALL=C sort)

files=0
failed=0
variants=0
left_out=0
declare -A fam_files fam_variants

for f in "${FILES[@]}"; do
    files=$((files + 1))
    fam=$(basename "$(dirname "$f")")
    if out=$("$BIN" variants "$f" 2>&1); then
        n=$(printf '%s\n' "$out" | head -n 1 | sed -n 's/.*: \([0-9][0-9]*\) variants,.*/\1/p')
        l=$(printf '%s\n' "$out" | grep -c 'left out:')
        variants=$((variants + ${n:-0}))
        left_out=$((left_out + l))
        fam_files[$fam]=$(( ${fam_files[$fam]:-0} + 1 ))
        fam_variants[$fam]=$(( ${fam_variants[$fam]:-0} + ${n:-0} ))
    else
        failed=$((failed + 1))
        echo "FAIL variants $f"
        printf '%s\n' "$out" | head -n 30 | sed 's/^/    /'
    fi
done

echo
echo "variant sets: $((files - failed)) of $files built, $variants variants ($left_out more left out for naga)"
for fam in $(printf '%s\n' "${!fam_files[@]}" | LC_ALL=C sort); do
    printf '  %-12s %4d files %6d variants\n' "$fam" "${fam_files[$fam]}" "${fam_variants[$fam]}"
done

# glslang sample
sampled=0
gfailed=0
if ! command -v glslangValidator >/dev/null; then
    echo "glslangValidator not found: glslang sample skipped"
else
    for d in $(find "$DIR" -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort); do
        mapfile -t ALL < <(find "$d" -name '*.comp' | LC_ALL=C sort)
        n=${#ALL[@]}
        [ "$n" -eq 0 ] && continue
        SAMPLE=("${ALL[0]}")
        [ "$n" -gt 1 ] && SAMPLE+=("${ALL[$((n / 2))]}")
        # and every shader that tests a device macro
        for f in "${ALL[@]}"; do
            case " ${SAMPLE[*]} " in *" $f "*) continue ;; esac
            grep -q '\bncnn_' "$f" && SAMPLE+=("$f")
        done
        for f in "${SAMPLE[@]}"; do
            if grep -q '\bncnn_' "$f"; then
                caps=("" devices/*.json)
            else
                caps=("")
            fi
            for c in "${caps[@]}"; do
                sampled=$((sampled + 1))
                args=(expand "$f" --mode fp32)
                [ -n "$c" ] && args+=(--device-caps "$c")
                label="$f${c:+ ($c)}"
                if ! "$BIN" "${args[@]}" >"$TMP/x.comp" 2>"$TMP/err"; then
                    gfailed=$((gfailed + 1))
                    echo "FAIL expand $label"
                    head -n 30 "$TMP/err" | sed 's/^/    /'
                    continue
                fi
                if grep -q 'GL_EXT_integer_dot_product' "$TMP/x.comp"; then
                    # glslang 12 does not know the extension (docs/naga.md)
                    echo "glslang sample: $label skipped (glslang lacks GL_EXT_integer_dot_product)"
                    sampled=$((sampled - 1))
                    continue
                fi
                if ! glslangValidator -V --target-env vulkan1.1 -S comp -o "$TMP/x.spv" "$TMP/x.comp" >"$TMP/err" 2>&1; then
                    gfailed=$((gfailed + 1))
                    echo "FAIL glslang $label"
                    head -n 30 "$TMP/err" | sed 's/^/    /'
                fi
            done
        done
    done
    echo "glslang sample: $((sampled - gfailed)) of $sampled expansions accepted"
fi

if [ "$failed" -ne 0 ] || [ "$gfailed" -ne 0 ]; then
    echo "FAILED: $failed variant sets, $gfailed glslang checks"
    exit 1
fi
echo "OK"
