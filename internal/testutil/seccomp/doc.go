// Package seccomp builds and installs a seccomp-BPF filter, in Go without
// cgo, that denies the io_uring syscalls with a chosen errno. Tests use it
// in a child process to check how the library reports a sandbox that
// blocks io_uring.
package seccomp
