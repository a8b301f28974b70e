#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// libm's `pow`: Loop's habit score needs it bit for bit, and the standard library has none.
/// The one C call of the pure core, so this is its only file that imports the C library
/// (PurityTests holds it to that).
func power(_ x: Double, _ y: Double) -> Double { pow(x, y) }
