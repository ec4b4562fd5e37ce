// Package examples holds runnable programs on the task runtime: filecopy
// (a file copier), echo (a TCP echo server) and hello (an HTTP hello-world
// server through the runtime's net.Listener). Each is a main package in
// its own directory; its test runs it bounded.
package examples
