extension JobBatch {
    /// Calls `body` with each non-blank line of `fd` and its byte offset, reading a chunk at a
    /// time: a batch of any size is checked in bounded memory. A line too long to be a job is
    /// reported with `tooLong` (its bytes are not kept).
    public static func forEachLine(_ fd: Int32, _ body: (Line, _ offset: Int) -> Void, tooLong: (Problem) -> Void) {
        var number = 0
        var offset = 0  // of the current line's first byte
        var long = false
        FileSystem.forEachLine(fd) { bytes, piece in
            switch piece {
            case .part:
                if !long { number += 1; tooLong(Self.tooLong(number)) }
                long = true
                offset += bytes.count
            case .lastPart:
                long = false
                offset += bytes.count + 1
            case .line:
                number += 1
                if !bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { body(Line(number: number, bytes: bytes), offset) }
                offset += bytes.count + 1
            }
        }
    }
}
