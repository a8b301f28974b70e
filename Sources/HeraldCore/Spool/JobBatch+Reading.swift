extension JobBatch {
    /// Calls `body` with each non-blank line of `fd` and its byte offset, reading a chunk at a
    /// time: a batch of any size is checked in bounded memory. A line too long to be a job is
    /// reported with `tooLong` (its bytes are not kept). With `start` and `end`, the lines of
    /// that stretch (which starts a line), numbered from 1 within it. Returns how many lines
    /// (blank ones too) it had.
    @discardableResult
    public static func forEachLine(_ fd: Int32, from start: Int = 0, to end: Int? = nil, _ body: (Line, _ offset: Int) -> Void,
                                   tooLong: (Problem) -> Void) -> Int {
        var number = 0
        var offset = start  // of the current line's first byte
        var long = false
        FileSystem.forEachLine(fd, from: start, to: end) { bytes, piece in
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
        return number
    }
}
