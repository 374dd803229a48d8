{
  "targets": [
    {
      "target_name": "native_kernel",
      "sources": ["src/addon.c", "src/vectors.c", "src/postings.c"],
      "cflags": ["-O3", "-std=c11", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O3", "-std=c11"] }
    }
  ]
}
