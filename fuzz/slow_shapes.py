#!/usr/bin/env python3
"""Writes 1 MiB shaders, one per text pass, and times the release CLI on each:
   cargo build --release --bin ncnn-glsl && python3 fuzz/slow_shapes.py
fuzz/README.md (round 3 finds) has the figures it gave."""
import os, subprocess, tempfile, time
N=60000
H="#version 450\nlayout (local_size_x = 64) in;\n"
cases={
 'shadow': H+"".join(f"float g{i};\n" for i in range(N//2))+"buffer B { "+"".join(f"float g{i}; " for i in range(N//2))+"} b;\nvoid main(){}\n",
 'brackets_sq': H+"void main(){ x = "+"a["*N+"; }\n",
 'braces': H+"void main()"+"{"*N+"\n",
 'closers': H+"void main(){ "+")]}"*N+"\n",
 'spec': H+"".join(f"layout (constant_id = {i}) const int s{i} = 1;\n" for i in range(N))+"void main(){}\n",
 'specuse': H+"layout (constant_id = 0) const int s = 1;\n"+"".join(f"const int c{i} = s + {i};\n" for i in range(N))+"void main(){}\n",
 'shared': H+"".join(f"shared float t{i}[4][4];\n" for i in range(N//2))+"void main(){}\n",
 'arr2d': H+"void main(){"+"".join(f"float a{i}[2][3];" for i in range(N//2))+"}\n",
 'funcs': H+"".join(f"void f{i}(){{f{i+1}();}}\n" for i in range(N//2))+"void main(){}\n",
 'protos': H+"".join(f"void f{i}();\n" for i in range(N))+"void main(){}\n",
 'calls': H+"void f(){}\nvoid main(){"+"f();"*N+"}\n",
 'bindings': H+"".join(f"layout (binding = {i}) buffer B{i} {{ float d{i}[]; }};\n" for i in range(N//4))+"void main(){}\n",
 'writeonly': H+"".join(f"layout (binding = {i}) writeonly buffer B{i} {{ float d{i}[]; }};\n" for i in range(N//8))+"void main(){"+"".join(f"d{i}[0]=1.0;" for i in range(N//8))+"}\n",
 'atomics': H+"layout (binding = 0) buffer B { uint d[]; };\nvoid main(){"+"atomicAdd(d[0], 1u);"*N+"}\n",
 'dots': H+"void main(){ uint a=0u; int s=0;"+"s += dotPacked4x8EXT(a, a);"*(N//2)+"}\n",
 'barriers': H+"void main(){"+"barrier();"*N+"}\n",
 'ifs': H+"void main(){ int x=0;"+"if (x==1) { x=2; }"*(N//4)+"}\n",
 'switch': H+"void main(){ int x=0; switch(x){"+"".join(f"case {i}: x=1; break;" for i in range(N//4))+"}}\n",
 'struct': H+"".join(f"struct S{i} {{ float a; }};\n" for i in range(N//2))+"void main(){}\n",
 'defines': H+"".join(f"#define M{i} {i}\n" for i in range(N))+"void main(){}\n",
 'ifdefs': H+"#if 1\n"*N+"void main(){}\n",
 'macrouse': H+"#define M(x) (x+x)\nvoid main(){ int y = "+"M("*200+"1"+")"*200+";}\n",
 'strings': H+"void main(){"+'"a";'*N+"}\n",
 'lines': H+"\r"*N*4+"void main(){}\n",
 'comment': H+"/*"+"*"*(1<<19)+"\nvoid main(){}\n",
 'idents': H+"void main(){"+"".join(f"int v{i};" for i in range(N))+"}\n",
 'locals2d': H+"void main(){"+"".join(f"float[4] a{i}[2];" for i in range(N//2))+"}\n",
 # specialization-constant expressions (spec_expressions.rs): sizes, derived constants
 'specsizes': H+"layout (constant_id = 0) const int s = 1;\nvoid main(){"+"".join(f"float a{i}[s + {i}];" for i in range(N//8))+"}\n",
 'specshared': H+"layout (constant_id = 0) const int s = 1;\n"+"".join(f"shared float t{i}[s * {i + 1}];\n" for i in range(N//8))+"void main(){}\n",
 'specderived': H+"layout (constant_id = 0) const int s = 1;\n"+"".join(f"const int c{i} = s + {i};\n" for i in range(1900))+"shared float t[c1899];\nvoid main(){ t[0] = 1.0; }\n",
 # subgroups (subgroups.rs)
 'subgroups': H+"layout (binding = 0) buffer B { float d[]; };\nvoid main(){ float x = d[0];"+"x = subgroupAdd(x) + float(gl_SubgroupSize);"*(N//8)+"d[1] = x; }\n",
}
extra = {
 'ifdefs': H+"#if 1\n"*N+"void main(){}\n",
}
cases.update(extra)
d = tempfile.mkdtemp()
cli = os.path.join(os.path.dirname(__file__), '..', 'target', 'release', 'ncnn-glsl')
for k, v in cases.items():
    p = os.path.join(d, k + '.comp')
    open(p, 'w').write(v[:1 << 20])
    t = time.time()
    subprocess.run([cli, 'compile', p, '--mode', 'fp32', '-o', os.path.join(d, 'o.spv')],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    print(f"{k:12} {time.time() - t:6.2f} s")
