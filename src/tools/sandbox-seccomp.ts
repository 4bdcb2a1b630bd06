/**
 * The seccomp filter that keeps sandboxed commands away from unix sockets: `socket(AF_UNIX, …)` fails with
 * EPERM, and `io_uring_setup` with ENOSYS (io_uring could open and connect sockets without the `socket` call).
 * A read-only bind does not stop `connect()` on a socket file, and a socket may sit anywhere the sandbox can
 * read (`/run/user/…/ssh-agent`, `/var/run/docker.sock`, an ssh ControlMaster under `~/.ssh`), so the filter
 * refuses the address family itself — a fresh network namespace already cuts abstract sockets, but not with the
 * network allowed. `socketpair(AF_UNIX)` stays allowed: it connects nothing outside, and pipes to child
 * processes (libuv, Python) are made with it.
 *
 * The program is classic BPF (`struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k, little-endian), handed to
 * bubblewrap on a file descriptor (`--seccomp FD`), which installs it just before it runs the command. Linux on
 * x86-64 (with its i386 and x32 entry points) and arm64 (with 32-bit ARM); elsewhere there is no filter.
 */

const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

const RET_ALLOW = 0x7fff_0000;
const RET_KILL_PROCESS = 0x8000_0000;
const RET_ERRNO = 0x0005_0000;
const EPERM = 1;
const ENOSYS = 38;
const AF_UNIX = 1;

/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16; // little-endian: the low 32 bits of args[0]

/** One ABI the kernel may be entered through, and its numbers for the calls refused. */
interface Abi {
  audit: number;
  /** `socket`: refused when the domain is AF_UNIX. */
  socket: number[];
  /** Refused whatever their arguments (`socketcall` hides its arguments behind a pointer). */
  refuse: Array<{ nr: number; errno: number }>;
}

const X32 = 0x4000_0000;
const ABIS: Record<string, Abi[]> = {
  x64: [
    {
      audit: 0xc000_003e, // AUDIT_ARCH_X86_64 (x32 calls arrive with bit 30 set)
      socket: [41, X32 | 41],
      refuse: [
        { nr: 425, errno: ENOSYS },
        { nr: X32 | 425, errno: ENOSYS },
      ],
    },
    {
      audit: 0x4000_0003, // AUDIT_ARCH_I386
      socket: [359],
      refuse: [
        { nr: 102, errno: EPERM }, // socketcall
        { nr: 425, errno: ENOSYS },
      ],
    },
  ],
  arm64: [
    { audit: 0xc000_00b7, socket: [198], refuse: [{ nr: 425, errno: ENOSYS }] }, // AUDIT_ARCH_AARCH64
    { audit: 0x4000_0028, socket: [281], refuse: [{ nr: 425, errno: ENOSYS }] }, // AUDIT_ARCH_ARM
  ],
};

type Jump = number | string;
type Line = { label: string } | { code: number; jt?: Jump; jf?: Jump; k: number };

/** The filter for `arch` (a `process.arch` value), or undefined where none is known. */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const abis = ABIS[arch];
  if (!abis) return undefined;
  const lines: Line[] = [];
  abis.forEach((abi, index) => {
    const next = `abi${index + 1}`;
    lines.push({ label: `abi${index}` }, { code: LD_W_ABS, k: ARCH });
    lines.push({ code: JEQ_K, k: abi.audit, jt: 0, jf: next });
    lines.push({ code: LD_W_ABS, k: NR });
    for (const nr of abi.socket) lines.push({ code: JEQ_K, k: nr, jt: "domain", jf: 0 });
    for (const { nr, errno } of abi.refuse) {
      lines.push({ code: JEQ_K, k: nr, jt: `errno${errno}`, jf: 0 });
    }
    lines.push({ code: RET_K, k: RET_ALLOW });
  });
  // Entered through an ABI none of the above describes: nothing this filter knows the numbers of.
  lines.push({ label: `abi${abis.length}` }, { code: RET_K, k: RET_KILL_PROCESS });
  lines.push({ label: "domain" }, { code: LD_W_ABS, k: ARG0_LOW });
  lines.push({ code: JEQ_K, k: AF_UNIX, jt: `errno${EPERM}`, jf: 0 });
  lines.push({ code: RET_K, k: RET_ALLOW });
  lines.push({ label: `errno${EPERM}` }, { code: RET_K, k: RET_ERRNO | EPERM });
  lines.push({ label: `errno${ENOSYS}` }, { code: RET_K, k: RET_ERRNO | ENOSYS });
  return assemble(lines);
}

/** Resolves labels to forward offsets and packs the instructions. */
function assemble(lines: Line[]): Buffer {
  const at = new Map<string, number>();
  let count = 0;
  for (const line of lines) {
    if ("label" in line) at.set(line.label, count);
    else count++;
  }
  const out = Buffer.alloc(count * 8);
  let index = 0;
  for (const line of lines) {
    if ("label" in line) continue;
    const offset = (jump: Jump | undefined): number => {
      if (jump === undefined || typeof jump === "number") return jump ?? 0;
      const target = at.get(jump);
      const distance = target === undefined ? -1 : target - index - 1;
      if (distance < 0 || distance > 255) throw new Error(`seccomp filter: bad jump to ${jump}`);
      return distance;
    };
    out.writeUInt16LE(line.code, index * 8);
    out.writeUInt8(offset(line.jt), index * 8 + 2);
    out.writeUInt8(offset(line.jf), index * 8 + 3);
    out.writeUInt32LE(line.k >>> 0, index * 8 + 4);
    index++;
  }
  return out;
}
