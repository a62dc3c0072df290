// A stand-in for xsf/gamma.h: tests/ui/missing_header_file.toml checks header existence against this root.
