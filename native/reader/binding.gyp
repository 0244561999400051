{
  "targets": [
    {
      "target_name": "jsonl_scan",
      "sources": ["src/jsonl_scan.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2"]
    }
  ]
}
