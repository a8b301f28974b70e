import Foundation
import Logging
@testable import HeraldCore
@testable import HeraldModel

/// A clock that only moves when told to.
final class ManualClock: WallClock, @unchecked Sendable {
    private var current: Instant
    init(_ start: Instant) { current = start }
    var now: Instant { current }
    func advance(by span: Span) { current = current + span }
    func set(_ instant: Instant) { current = instant }
}

/// heraldd's shell in miniature, for tests of the engine against a real spool: it carries
/// out every effect at once, in order, on the calling thread (with the same `SpoolWorker`
/// and `IntakeReader` heraldd uses), and feeds what came of it back until nothing is left.
/// Each call returns the popups the notifier showed meanwhile.
final class EngineDriver {
    var engine: Engine
    let logger: Logger
    let spool: Spool
    let clock: ManualClock
    var notifier: RecordingNotifier
    let worker: SpoolWorker
    let reader: IntakeReader
    /// Every effect the engine asked for, in order.
    private(set) var effects: [EngineEffect] = []
    /// What the timer is armed for.
    private(set) var armed: Instant?
    /// The wake-from-suspend instant last asked for, and how often it was asked.
    private(set) var wakeArmed: Instant?
    private(set) var wakeArms = 0
    /// Popups the engine asked to close, and pages it asked to open.
    private(set) var closed: [String] = []
    private(set) var opened: [String] = []
    private(set) var replies: [(UInt64, ClientAnswer)] = []
    private var nextTicket: UInt64 = 0
    /// Dismisses and snoozes of calendar alarms to be written into their items.
    private(set) var writtenBack: [CalendarWriteBack] = []
    /// Commands the engine asked the runner to start, and Run agains (the runner is heraldd's).
    private(set) var runStarts: [RunStart] = []
    private(set) var runAgains: [(id: String, run: Int)] = []
    private(set) var runStops: [(id: String, run: Int)] = []

    init(spool: Spool, config: HeraldConfig = HeraldConfig(), localZone: TimeZoneRules = .utc, clock: ManualClock,
         logger: Logger, notifier: RecordingNotifier = RecordingNotifier(), partSize: Int = 1_000) {
        self.spool = spool
        self.clock = clock
        self.notifier = notifier
        self.logger = logger
        engine = Engine(config: config, localZone: localZone, logger: logger)
        worker = SpoolWorker(spool: spool, logger: logger)
        reader = IntakeReader(spool: spool, partSize: partSize)
    }

    @discardableResult
    func send(_ first: EngineEvent) -> [NotificationRequest] {
        var events = [first]
        var shown: [NotificationRequest] = []
        var rounds = 0
        while !events.isEmpty {
            defer {
                // A timer armed for a time already past goes off at once, as heraldd's does.
                if events.isEmpty, let armed, armed <= clock.now, rounds < 100 { rounds += 1; events.append(.timerFired) }
            }
            let produced = engine.handle(events.removeFirst(), now: clock.now)
            effects += produced
            for effect in produced {
                switch effect {
                case .show(let request):
                    let outcome = OutcomeBox()
                    notifier.show(request) { outcome.value = $0 }
                    if case .success = outcome.value { shown.append(request) }
                    events.append(.shown(jobID: request.jobID, outcome.value))
                case .load(let request): events.append(worker.load(request, localZone: engine.localZone))
                case .spool(let operation): if let failure = worker.carryOut(operation, now: clock.now) { events.append(failure) }
                case .listJobs: events.append(.jobsListed((try? worker.listJobs().jobs) ?? []))
                case .readIntake(let request):
                    var read: [EngineEvent] = []
                    reader.read(request, now: clock.now) { read.append($0) }
                    events += read + rereadOnceWritten(read)
                case .file(let plan): events.append(worker.file(plan, now: clock.now))
                case .armTimer(let wake): armed = wake
                case .armWake(let instant): wakeArmed = instant; wakeArms += 1
                case .close(let id): closed.append(id)
                case .open(let url): opened.append(url)
                case .writeBack(let change): writtenBack.append(change)
                case .startRun(let start): runStarts.append(start)
                case .runAgain(let id, let run, _): runAgains.append((id, run))
                case .stopRun(let id, let run): runStops.append((id, run))
                case .reply(let ticket, let answer): replies.append((ticket, answer))
                case .log(let line): logger.log(line)
                }
            }
        }
        return shown
    }

    /// heraldd leaves a file of new/ that something still has open for writing for its
    /// IN_CLOSE_WRITE, and reads it again then; here that event is waited for and sent. Tests
    /// in this process start programs all the time (the end-to-end suites run alongside), and
    /// a child forked while a test wrote a job file holds it open until it execs.
    private func rereadOnceWritten(_ read: [EngineEvent]) -> [EngineEvent] {
        var names: [String] = []
        for case .intakeRead(let files) in read {
            for case .gone(let file) in files where FileSystem.exists(spool.new + "/" + file) { names.append(file) }
        }
        let written = names.filter { waitUntilWritten(spool.new + "/" + $0) }
        return written.isEmpty ? [] : [.intakeAppeared(written)]
    }

    // The events, by name.

    @discardableResult
    func start() throws -> [NotificationRequest] {
        try spool.prepare()
        let listing = try worker.listJobs()
        return send(.started(jobs: listing.jobs, strays: listing.strays))
    }
    @discardableResult func tick() -> [NotificationRequest] { send(.timerFired) }
    /// A CLI request on heraldd.sock; returns the engine's answer.
    func request(_ request: ClientRequest) -> ClientAnswer? {
        nextTicket += 1
        let ticket = nextTicket
        send(.request(ticket: ticket, request))
        return replies.last { $0.0 == ticket }?.1
    }
    @discardableResult func clockChanged() -> [NotificationRequest] { send(.clockChanged) }
    @discardableResult func intake(names: [String]) -> [NotificationRequest] { send(.intakeAppeared(names)) }
    @discardableResult
    func jobsChanged(removed: [String] = [], added: [String] = []) -> [NotificationRequest] {
        send(.jobsChanged(removed.map(JobsChange.removed) + added.map(JobsChange.added)))
    }
    @discardableResult
    func actionInvoked(_ action: NotificationAction) -> [NotificationRequest] { send(.popup(.action(action))) }
    @discardableResult
    func press(_ action: PopupAction, on request: NotificationRequest) -> [NotificationRequest] {
        actionInvoked(NotificationAction(jobID: request.jobID, occurrence: request.occurrence, action: action))
    }
    @discardableResult
    func closedByServer(_ request: NotificationRequest, _ reason: CloseReason) -> [NotificationRequest] {
        send(.popup(.closed(jobID: request.jobID, occurrence: request.occurrence, reason)))
    }
    @discardableResult
    func quietSwitched(_ manual: QuietSwitch?) -> [NotificationRequest] { send(.quietSwitched(manual)) }
    @discardableResult
    func localZoneChanged(to zone: TimeZoneRules, jobs: [(name: JobFileName, job: Job)]) -> [NotificationRequest] {
        send(.localZoneChanged(zone, jobs: jobs))
    }

    // The engine's state, as the old tests ask for it.

    var pendingCount: Int { engine.pendingCount }
    var pendingJobs: [String: JobFileName] { engine.currentNames }
    var isBlocked: Bool { engine.isBlocked }
    var lastError: NotifierError? { engine.lastError }
    func nextWakeup() -> Instant? { engine.nextWakeup() }
}

final class OutcomeBox: @unchecked Sendable {
    var value: Result<Void, NotifierError> = .success(())
}

/// For tests written as "show what this call produced": the driver already showed it.
@discardableResult
func showAll(_ shown: [NotificationRequest], _ driver: EngineDriver) -> [NotificationRequest] { shown }
