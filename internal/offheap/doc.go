// Package offheap gives typed views of memory that lives off the Go heap
// (mmap'd rings and buffers) and the few atomic accesses to it that
// sync/atomic does not offer directly (16-bit stores and loads).
//
// The views never outlive the mapping: the caller that owns the mapping
// drops every view before it unmaps. Nothing here allocates.
package offheap
