// SPDX-License-Identifier: MIT
// gotarget: the Go service of the classic question (pprof says little, ps
// says much): 64 MiB allocated and touched, 48 MiB of it dropped, collected
// and returned to the kernel (debug.FreeOSMemory), 16 MiB kept. How it is
// returned depends on GODEBUG=madvdontneed: 0 MADV_FREE (stays in RSS as
// LazyFree), 1 MADV_DONTNEED (RSS drops). Prints "ready", then waits for
// standard input to close.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

var keep [][]byte

func main() {
	// Allocate and touch 64 MiB in 1 MiB pieces; keep a quarter, drop the rest.
	for i := 0; i < 64; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	for i := 16; i < len(keep); i++ {
		keep[i] = nil
	}
	keep = keep[:16]
	runtime.GC()
	debug.FreeOSMemory()
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	if len(keep) != 16 {
		os.Exit(1)
	}
}
