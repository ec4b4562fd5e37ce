//go:build linux

package uring

import "github.com/pure-uring/uring/sys"

// Mappings returns the ring's memory (the SQ and CQ rings and the SQEs).
func Mappings(r *Ring) [][]byte {
	l := r.life
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]byte(nil), l.regions...)
}

// WaitFlags returns the enter flags SetIOWait adds to every wait.
func WaitFlags(r *Ring) sys.EnterFlags { return sys.EnterFlags(r.noIOWait.Load()) }
