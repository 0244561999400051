{
  "targets": [
    {
      "target_name": "vector_scan",
      "sources": ["src/module.cc", "src/jsonl_scan.cc", "src/yaml_scan.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra"]
    }
  ]
}
