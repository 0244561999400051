{
  "targets": [
    {
      "target_name": "cuda_launcher",
      "sources": [
        "src/cuda_launcher.cc",
        "src/hostmem.cc",
        "src/peer.cc",
        "src/views.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!(node -p \"(process.env.CUDA_HOME || '/usr/local/cuda') + '/include'\")"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_DISABLE_CPP_EXCEPTIONS"
      ],
      "cflags_cc": [
        "-std=c++17",
        "-O2"
      ],
      "libraries": [
        "-ldl"
      ]
    },
    {
      "target_name": "cuda_multicast",
      "sources": [
        "src/multicast.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!(node -p \"(process.env.CUDA_HOME || '/usr/local/cuda') + '/include'\")"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_DISABLE_CPP_EXCEPTIONS"
      ],
      "cflags_cc": [
        "-std=c++17",
        "-O2"
      ],
      "libraries": [
        "-ldl"
      ]
    }
  ]
}
