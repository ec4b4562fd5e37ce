package feature

import "sync"

// cache remembers final probe answers (nil or unsupported) per key. A
// key's lock is held while its probe runs, so each key is probed once even
// when asked for concurrently; a probe may ask about other keys (a probe
// on a Ring asks what uring.New asks).
type cache[K comparable] struct {
	mu sync.Mutex
	m  map[K]*cached
}

// cached is one key's probe answer, once final.
type cached struct {
	mu   sync.Mutex
	done bool
	err  error
}

// transient marks a probe answer that must not be cached: the probe failed,
// or io_uring is unavailable right now.
type transient struct{ err error }

func (t transient) Error() string { return t.err.Error() }

// notFinal wraps err so that cache.get returns it without caching it.
func notFinal(err error) error { return transient{err} }

// unwrapTransient strips the notFinal mark from an answer not going
// through a cache.
func unwrapTransient(err error) error {
	if t, ok := err.(transient); ok {
		return t.err
	}
	return err
}

// get returns the cached answer for k or runs probe, caching its answer
// unless it is marked notFinal.
func (c *cache[K]) get(k K, probe func() error) error {
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[K]*cached)
	}
	a := c.m[k]
	if a == nil {
		a = new(cached)
		c.m[k] = a
	}
	c.mu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return a.err
	}
	err := probe()
	if _, ok := err.(transient); ok {
		return unwrapTransient(err)
	}
	a.done, a.err = true, err
	return err
}

// reset forgets every answer (tests).
func (c *cache[K]) reset() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}
