package bench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress shows the point being measured on one terminal line, rewritten
// in place with \r. A nil *Progress shows nothing.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	width int
}

// NewProgress returns a display on w, or nil when w is not a terminal (a
// file, a pipe: then nothing is shown).
func NewProgress(w io.Writer) *Progress {
	f, ok := w.(*os.File)
	if !ok || !IsTerminal(int(f.Fd())) {
		return nil
	}
	return &Progress{w: w, start: time.Now()}
}

// NewProgressTo returns a display on w whatever w is (tests).
func NewProgressTo(w io.Writer) *Progress { return &Progress{w: w, start: time.Now()} }

// Show replaces the line with msg and the elapsed time.
func (p *Progress) Show(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf("[%5.1fs] %s", time.Since(p.start).Seconds(), msg)
	if len(line) > 110 {
		line = line[:110]
	}
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
}

// Done clears the line.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}
