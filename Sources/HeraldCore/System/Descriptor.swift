#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CHeraldSys
import Synchronization

/// One open file descriptor and its one owner: it is closed when the owner goes, or when
/// `close()` says so, and by nobody else (no `close` is written by hand anywhere but here).
/// A Dispatch source's cancel handler that holds it keeps it open until the source is done.
public final class Descriptor: Sendable {
    public let raw: Int32
    private let isOpen = Atomic<Bool>(true)

    /// Takes ownership of `raw`; nil (with errno kept) when it is not a descriptor (a failed call's -1).
    public init?(_ raw: Int32) {
        guard raw >= 0 else { return nil }
        self.raw = raw
    }

    /// Opens `path` relative to `directory` (nil: the working directory) with `flags`, close-on-exec.
    public static func open(_ path: String, in directory: Descriptor? = nil, _ flags: Int32, mode: mode_t = 0o600) -> Descriptor? {
        Descriptor(openat(directory?.raw ?? AT_FDCWD, path, flags | O_CLOEXEC, mode))
    }

    /// A pipe, both ends close-on-exec; nil (errno kept) when none can be made.
    public static func pipe() -> (read: Descriptor, write: Descriptor)? {
        var ends: [Int32] = [-1, -1]
        guard herald_pipe_cloexec(&ends) == 0 else { return nil }
        return (Descriptor(ends[0])!, Descriptor(ends[1])!)
    }

    deinit { if isOpen.load(ordering: .relaxed) { _ = Glibc.close(raw) } }

    /// Closes it now (once; later calls do nothing).
    public func close() {
        if isOpen.exchange(false, ordering: .acquiringAndReleasing) { _ = Glibc.close(raw) }
    }

    /// Gives the descriptor to something that closes it itself (`fdopendir`): this no longer will.
    public func release() -> Int32 {
        isOpen.store(false, ordering: .releasing)
        return raw
    }

    /// Writes all of `bytes` (see `Descriptor.writeAll(to:_:socket:)`).
    @discardableResult
    public func writeAll(_ bytes: some Collection<UInt8>, socket: Bool = false) -> Bool {
        Self.writeAll(to: raw, bytes, socket: socket)
    }

    /// The one write-all: all of `bytes` to `fd` (a short write or an interrupted one goes on);
    /// false on an error (errno says which). Sockets are written with MSG_NOSIGNAL: a peer gone
    /// is an error, not SIGPIPE. For descriptors nobody here owns (standard output and error).
    @discardableResult
    public static func writeAll(to fd: Int32, _ bytes: some Collection<UInt8>, socket: Bool = false) -> Bool {
        let write = { (buffer: UnsafeRawBufferPointer) -> Bool in
            var done = 0
            while done < buffer.count {
                let n = socket ? send(fd, buffer.baseAddress! + done, buffer.count - done, Int32(MSG_NOSIGNAL))
                               : Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 { if errno == EINTR { continue }; return false }
                if n == 0 { return false }
                done += n
            }
            return true
        }
        return bytes.withContiguousStorageIfAvailable { write(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes(write)
    }
}

/// Lines read from a descriptor (a pipe, a socket), a chunk at a time.
public final class LineReader {
    private let descriptor: Descriptor
    private var buffer: [UInt8] = []
    private var start = 0

    public init(_ descriptor: Descriptor) { self.descriptor = descriptor }

    /// The next line without its newline; nil at the end (a last line without a newline is
    /// dropped: it was cut short), on an error, or past `limit` bytes.
    public func next(limit: Int) -> [UInt8]? {
        var scanned = start
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start > 1 << 20 || start == buffer.count {  // drop what was read
                    buffer.removeFirst(start)
                    start = 0
                }
                return line
            }
            scanned = buffer.count
            guard buffer.count - start <= limit else { return nil }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(descriptor.raw, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
