# Sourced by the bench scripts. installed FILE...: make freshly built binaries time as installed
# ones. The linker writes its output through a shared mapping, which leaves the file in the
# page cache as small pages, and a freshly linked pigo then starts ~2 ms slower than the same
# file copied or read back from disk (docs/decisions/25-speed.md, D25.31): each is copied once.
installed() { for f; do cp "$f" "$f.copy" && mv "$f.copy" "$f"; done; }
