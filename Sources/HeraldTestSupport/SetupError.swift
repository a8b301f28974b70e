/// Why a benchmark or an end-to-end test could not run at all: a broken set-up (a program
/// missing, a socket that cannot be bound), never a slow or wrong result.
public struct SetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
