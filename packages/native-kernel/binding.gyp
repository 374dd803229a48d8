{
  "targets": [
    {
      "target_name": "native_kernel",
      "sources": ["src/addon.c", "src/vectors.c", "src/postings.c", "src/graph_view.cpp"],
      "include_dirs": ["node_modules/usearch/include"],
      "cflags": ["-O3"],
      "cflags_c": ["-std=c11", "-Wall", "-Wextra"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wno-unknown-pragmas"],
      "cflags_cc!": ["-fno-exceptions"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O3", "-std=c11"], "GCC_ENABLE_CPP_EXCEPTIONS": "YES" }
    }
  ]
}
