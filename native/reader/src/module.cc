// The vector-file scanners' addon (issue 28): scan (JSON lines, jsonl_scan.cc) and scanYaml (YAML
// list items, yaml_scan.cc). harness/case-readers/native-scan.ts loads it and checks `layout`.
#include "scan_common.h"

Napi::Object Module(Napi::Env env, Napi::Object exports) {
  exports.Set("scan", Napi::Function::New(env, scan::ScanJsonl));
  exports.Set("scanYaml", Napi::Function::New(env, scan::ScanYaml));
  exports.Set("layout", Napi::String::New(env, "R_HEAD=26 MAX_ELEMS=16 TBL_N=64 TBL_W=128 SLOTS=128 yaml=1"));
  return exports;
}

NODE_API_MODULE(vector_scan, Module)
