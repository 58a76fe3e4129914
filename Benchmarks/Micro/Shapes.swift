// Shapes for MicroBenchmarks: ten classes, each with its own protocol (generated once by a
// short script; regenerate rather than edit by hand). Each component looks up each of its
// ten declared predecessors once by class and once by protocol.
import PluginABI

let repetitions = 1

protocol P0: AnyObject {}
protocol P1: AnyObject {}
protocol P2: AnyObject {}
protocol P3: AnyObject {}
protocol P4: AnyObject {}
protocol P5: AnyObject {}
protocol P6: AnyObject {}
protocol P7: AnyObject {}
protocol P8: AnyObject {}
protocol P9: AnyObject {}

final class K0: Bootstrapping, P0 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K1: Bootstrapping, P1 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K2: Bootstrapping, P2 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K3: Bootstrapping, P3 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K4: Bootstrapping, P4 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K5: Bootstrapping, P5 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K6: Bootstrapping, P6 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K7: Bootstrapping, P7 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K8: Bootstrapping, P8 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

final class K9: Bootstrapping, P9 {
    let measured: Measured
    let index: Int
    init(_ index: Int, _ measured: Measured) { self.index = index; self.measured = measured }
    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        guard index >= 10 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<repetitions {
            _ = try bootstrapped.component(K0.self)
            _ = try bootstrapped.component(K1.self)
            _ = try bootstrapped.component(K2.self)
            _ = try bootstrapped.component(K3.self)
            _ = try bootstrapped.component(K4.self)
            _ = try bootstrapped.component(K5.self)
            _ = try bootstrapped.component(K6.self)
            _ = try bootstrapped.component(K7.self)
            _ = try bootstrapped.component(K8.self)
            _ = try bootstrapped.component(K9.self)
            _ = try bootstrapped.component((any P0).self)
            _ = try bootstrapped.component((any P1).self)
            _ = try bootstrapped.component((any P2).self)
            _ = try bootstrapped.component((any P3).self)
            _ = try bootstrapped.component((any P4).self)
            _ = try bootstrapped.component((any P5).self)
            _ = try bootstrapped.component((any P6).self)
            _ = try bootstrapped.component((any P7).self)
            _ = try bootstrapped.component((any P8).self)
            _ = try bootstrapped.component((any P9).self)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        measured.total.withLock { $0 = ($0.0 + nanoseconds, $0.1 + 20 * repetitions) }
    }
}

func makeComponent(_ index: Int, measured: Measured) -> any Bootstrapping {
    switch index % 10 {
    case 0: K0(index, measured)
    case 1: K1(index, measured)
    case 2: K2(index, measured)
    case 3: K3(index, measured)
    case 4: K4(index, measured)
    case 5: K5(index, measured)
    case 6: K6(index, measured)
    case 7: K7(index, measured)
    case 8: K8(index, measured)
    default: K9(index, measured)
    }
}
