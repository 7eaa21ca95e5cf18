// A JVM for explain's runtime rules: 32 MiB of live arrays on its heap,
// "ready" on stdout, then it waits for stdin to close.
public class JvmTarget {
	public static void main(String[] args) throws Exception {
		byte[][] live = new byte[4][];
		for (int i = 0; i < live.length; i++) {
			live[i] = new byte[8 << 20];
			java.util.Arrays.fill(live[i], (byte) 1);
		}
		System.out.println("ready");
		System.out.flush();
		while (System.in.read() >= 0)
			;
		System.out.println(live.length);
	}
}
