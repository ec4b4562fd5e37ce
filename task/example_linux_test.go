//go:build linux

package task_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task"
)

// A task reads a file with straight-line code; each await parks the task
// and the executor resumes it with the result.
func Example() {
	ex, err := task.NewExecutor()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	dir, _ := os.MkdirTemp("", "task-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting")
	_ = os.WriteFile(path, []byte("hello from io_uring"), 0o600)

	s, err := task.Run(context.Background(), ex, func(t *task.T) (string, error) {
		fd, err := t.Open(path, unix.O_RDONLY, 0)
		if err != nil {
			return "", err
		}
		defer t.Close(fd)
		buf := make([]byte, 64)
		n, err := t.Read(fd, buf, 0)
		return string(buf[:n]), err
	})
	fmt.Println(s, err)
	// Output: hello from io_uring <nil>
}

// Spawn starts tasks; Join waits for one and returns its typed result.
func ExampleSpawn() {
	ex, _ := task.NewExecutor()
	defer ex.Close()
	sum, _ := task.Run(context.Background(), ex, func(t *task.T) (int, error) {
		var hs []*task.Handle[int]
		for i := 1; i <= 3; i++ {
			hs = append(hs, task.Spawn(t, func(t *task.T) (int, error) {
				return i * i, t.Sleep(time.Duration(i) * time.Millisecond)
			}))
		}
		total := 0
		for _, h := range hs {
			v, err := h.Join(t)
			if err != nil {
				return 0, err
			}
			total += v
		}
		return total, nil
	})
	fmt.Println(sum)
	// Output: 14
}

// FirstOf returns the first task to finish and cancels the others.
func ExampleFirstOf() {
	ex, _ := task.NewExecutor()
	defer ex.Close()
	v, _ := task.Run(context.Background(), ex, func(t *task.T) (string, error) {
		_, v, err := task.FirstOf(t,
			func(t *task.T) (string, error) { return "slow", t.Sleep(time.Hour) },
			func(t *task.T) (string, error) { return "fast", t.Sleep(time.Millisecond) },
		)
		return v, err
	})
	fmt.Println(v)
	// Output: fast
}
