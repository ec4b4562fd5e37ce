//go:build !linux

package main

import "testing"

// directIOWorks: no io_uring benchmarks run here.
func directIOWorks(t *testing.T, dir string) bool { return true }
