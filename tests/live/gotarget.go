// SPDX-License-Identifier: MIT
// gotarget: the Go service of the classic question (pprof says little, ps
// says much). It reads a 16 MiB file four times, holding each copy, then
// drops three: 64 MiB allocated and touched, 48 MiB collected and returned
// to the kernel (debug.FreeOSMemory), 16 MiB kept. How it is returned
// depends on GODEBUG=madvdontneed: 0 MADV_FREE (stays in RSS as LazyFree),
// 1 MADV_DONTNEED (RSS drops). Prints "ready", then waits for standard
// input to close.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

const fileSize = 16 << 20

var keep [][]byte

// makeFile writes fileSize bytes to a new file in the temporary directory.
func makeFile() (string, error) {
	f, err := os.CreateTemp("", "gotarget-*")
	if err != nil {
		return "", err
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	for n := 0; n < fileSize && err == nil; n += len(chunk) {
		_, err = f.Write(chunk)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return f.Name(), err
}

func main() {
	name, err := makeFile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotarget:", err)
		os.Exit(1)
	}
	for i := 0; i < 4 && err == nil; i++ {
		var b []byte
		if b, err = os.ReadFile(name); err == nil {
			keep = append(keep, b)
		}
	}
	os.Remove(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotarget:", err)
		os.Exit(1)
	}
	for i := 1; i < len(keep); i++ {
		keep[i] = nil
	}
	keep = keep[:1]
	runtime.GC()
	debug.FreeOSMemory()
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	if len(keep[0]) != fileSize {
		os.Exit(1)
	}
}
