// A JVM for explain's runtime rules: 32 MiB of live arrays on its heap,
// "ready" on stdout, then it waits for stdin to close. Each "m" it reads
// on the way prints the heap as the JVM itself sees it, one line:
//   "mem TOTAL FREE MAX HEAP_USED HEAP_COMMITTED NONHEAP_USED NONHEAP_COMMITTED"
// Runtime.totalMemory(), freeMemory(), maxMemory() and the MemoryMXBean's
// heap and non-heap usage, in bytes (the figures are taken before the line
// is built, so that building it is not in them).
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;

public class JvmTarget {
	public static void main(String[] args) throws Exception {
		byte[][] live = new byte[4][];
		for (int i = 0; i < live.length; i++) {
			live[i] = new byte[8 << 20];
			java.util.Arrays.fill(live[i], (byte) 1);
		}
		System.out.println("ready");
		System.out.flush();
		MemoryMXBean mx = null;
		int c;
		while ((c = System.in.read()) >= 0) {
			if (c != 'm')
				continue;
			if (mx == null)
				mx = ManagementFactory.getMemoryMXBean();
			Runtime rt = Runtime.getRuntime();
			long total = rt.totalMemory(), free = rt.freeMemory(), max = rt.maxMemory();
			MemoryUsage heap = mx.getHeapMemoryUsage(), non = mx.getNonHeapMemoryUsage();
			System.out.println("mem " + total + " " + free + " " + max + " " + heap.getUsed() + " "
			                   + heap.getCommitted() + " " + non.getUsed() + " " + non.getCommitted());
			System.out.flush();
		}
		System.out.println(live.length);
	}
}
