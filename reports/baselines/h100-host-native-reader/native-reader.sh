#!/bin/sh
# device check of the bundle's native JSON-lines scanner: loads, and the same runs with and without it
set -e
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
B=$(pwd)/.bundle
xz -dc $B/node.xz > /tmp/ptxconf-node && chmod +x /tmp/ptxconf-node
N=/tmp/ptxconf-node
nproc; $N --version
$N -e 'const m=require(process.argv[1]);console.log("jsonl_scan.node loads:", m.layout)' $B/jsonl_scan.node
$N -e '
const K=[["atom.global.add.f32",8,0],["red.global.add.u32",8,0],["atom.global.cas.b32",8,1],["atom.global.add.noftz.f16",4,0]];
let s=12345;const r=()=>(s=(Math.imul(s,1103515245)+12345)>>>0);const h=d=>"0x"+(r()>>>(32-d*4)).toString(16).padStart(d,"0");
const out=require("fs").openSync("/tmp/m.jsonl","w");let b="{\"cite\": \"bench\"}\n";
for(let i=0;i<1000000;i++){const k=K[i%4];b+=`{"name": "case-${i}", "instruction": "${k[0]}", "memory": ["${h(k[1])}"], "operands": {"b": ["${h(k[1])}"]${k[2]?`, "c": ["${h(k[1])}"]`:""}}}\n`;if(b.length>65536){require("fs").writeSync(out,b);b=""}}
require("fs").writeSync(out,b);'
ls -la /tmp/m.jsonl
for be in reference gpu; do
  for m in 1 0 1 0; do
    t0=$(date +%s.%N)
    PTX_JSONL_NATIVE=$m /usr/bin/time -f "cpu %U user %S sys %e wall" sh $B/conformance.sh --vectors /tmp/m.jsonl --backend $be --report /tmp/r-$be-$m > /tmp/o 2>&1 || { tail -5 /tmp/o; }
    echo "backend=$be native=$m: $(grep -E 'read and judged|cases of .* judged' /tmp/o | cut -c1-170) | $(grep 'all results' /tmp/o) | $(tail -1 /tmp/o)"
  done
done
