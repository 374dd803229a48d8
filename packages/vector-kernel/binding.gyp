{
  "targets": [
    {
      "target_name": "vector_kernel",
      "sources": ["src/vector_kernel.c"],
      "cflags": ["-O3", "-std=c11", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O3", "-std=c11"] }
    }
  ]
}
