"""The record contract: every JSON record the engine hands the page, declared once.

The page reads nothing else: tools/write_contract.py turns these TypedDicts into the JSON
Schema the tests check every record against and the page validates every answer with
(app/contract/record-schema.json), and into the JSDoc typedefs `tsc --checkJs` checks the
page's code against (app/contract/record.js). Values the page and the engine share (the policy
names) are declared here too and written into app/contract/values.js. What the engine is
asked is declared beside it, in request_contract.py.
"""
from typing import Literal, NotRequired, TypedDict, get_args

RecordVersion = Literal[1]
RECORD_VERSION: RecordVersion = 1

# checkpoint_policies by name, in the order the page offers them (the first is no policy).
PolicyName = Literal["everything_saveable", "nothing_saveable", "dots_saveable",
                     "dots_with_no_batch_dims_saveable", "save_only_these_names",
                     "save_any_names_but_these"]
POLICY_NAMES: list[str] = list(get_args(PolicyName))
DEFAULT_POLICY: PolicyName = "nothing_saveable"
# The policies a checkpoint record compares, one card each, in the page's order.
PolicyRow = Literal["no checkpoint", PolicyName]
POLICY_ROWS: list[str] = ["no checkpoint", *POLICY_NAMES]
# A tangent input is named after its primal with a combining dot above: x -> ẋ.
TANGENT_MARK = "\u0307"

Mode = Literal["split", "jit", "grad", "linearize", "checkpoint", "interpreters", "masks"]
Side = Literal["known", "unknown", "both", "known-dropped", "unknown-dropped", "staged"]
PaneRole = Literal["known", "unknown", "staged", "other"]


class TypedVar(TypedDict):
    """A binder as the printer names it, with its type (`f32[3]`)."""
    name: str
    aval: str


class VarSpan(TypedDict):
    """Where the printer wrote a variable's name in `text`: [start, end)."""
    start: int
    end: int
    name: str


class Program(TypedDict):
    """A jaxpr as JAX prints it, whole and per equation, with its binders typed."""
    text: str
    prelude: str  # the inner jaxprs printed up front (`let jaxpr = { ... } in`), or ""
    header: str
    eqns: list[str]
    footer: str
    constvars: list[TypedVar]
    invars: list[TypedVar]
    outvars: list[TypedVar]  # a literal output's name is the printed literal
    lines: list[int | None]  # the user's source line of each equation
    spans: list[VarSpan]  # every variable name in `text`


class PaneInput(TypedDict):
    name: str
    aval: str
    arg: str | None  # the argument this input binds (a tangent: `x` + TANGENT_MARK)
    residual: int | None  # the residual this input receives


class PaneOutput(TypedDict):
    name: str
    aval: str
    residual: int | None  # the residual this output hands over


class Pane(TypedDict):
    id: str
    title: str
    role: PaneRole
    program: Program
    inputs: list[PaneInput]
    outputs: list[PaneOutput]


class Arg(TypedDict):
    name: str
    known: bool
    aval: str
    shape: list[int]
    dtype: str  # short, as in `aval`: f32, i32, bool
    value: str


class EventInput(TypedDict):
    name: str
    known: bool
    origin: str


class StagedOperand(TypedDict):
    """An operand a staged equation reads, as the unknown pane that runs it prints it, and
    where it comes from in the user's code. One with a residual is a residual operand: the
    known program hands it over (what predict mode asks at a mixed equation)."""
    name: str  # the unknown pane's name (`a`)
    residual: int | None  # the residual it receives (its `k`); None: not a residual
    known_name: str | None  # a residual's name in the known program (`b`); None otherwise
    arg: str | None  # the user's argument it is (`x`, `y`); None: a value computed
    line: int | None  # the user's line that computes it; None: an argument or a constant


class Event(TypedDict):
    """One traced equation as the mode judges it."""
    i: int
    eqn: str
    short: str
    primitive: str
    line: int | None
    side: Side
    narration: str
    outs: NotRequired[list[str]]
    inputs: NotRequired[list[EventInput]]
    known_eqns: NotRequired[list[int]]
    unknown_eqns: NotRequired[list[int]]
    # its equations as the known and the unknown pane print them (their names, not the
    # traced program's), in the order of known_eqns and unknown_eqns
    known_short: NotRequired[list[str]]
    unknown_short: NotRequired[list[str]]
    source: NotRequired[str | None]  # the user's source line `line`, as written (stripped)
    value: NotRequired[list[str | None] | None]
    residuals: NotRequired[list[int]]
    # split, grad, checkpoint: what its equations in the unknown pane read ([] when it has
    # none there), in that pane's names; the ones with a residual are its residual operands
    staged_operands: NotRequired[list[StagedOperand]]
    all_constant: NotRequired[bool]  # jit: every input a constant, staged all the same
    call: NotRequired["CallSplit"]  # a call equation (jit, remat2, scan, cond, while) opened


class Decision(TypedDict):
    """Python control flow a known (held) value decided while tracing: an `if` (kind bool),
    an `int()` or an index, at a line of the user's code, and the event that computed the
    value (None when it is an input itself)."""
    line: int | None
    kind: Literal["bool", "int", "index"]
    value: bool | int
    event: int | None


class Residual(TypedDict):
    k: int
    known_name: str
    unknown_name: str
    aval: str
    shape: list[int]
    dtype: str
    bytes: int
    producer: int | None
    known_eqn: int | None
    from_input: str | None
    value: str | None
    consumers: list[int]


class CallRound(TypedDict):
    """One round of a scan's or while's carry fixpoint: which carries were unknown going
    into the body and coming out of it, which turned unknown, and why (one sentence each,
    naming the body equation that made it unknown)."""
    unknown_in: list[bool]
    unknown_out: list[bool]
    turned: list[int]
    why: list[str]


class CallSplit(TypedDict):
    """A call equation opened in place: its inner program split under the unknowns its rule
    saw, one event per inner equation (an inner call's event opens in turn), the inner known
    and unknown panes and the residuals between them (indices local to this split)."""
    primitive: str
    title: str
    inputs_known: list[bool]
    # what each operand of the call is to the reader, beside inputs_known: the user's
    # argument (`W1`), a literal, "a constant" or "from line N"; the inner inputs it binds
    # are named so in the panes (their `arg`)
    inputs: list[str]
    program: Program  # the inner program as traced: the names events and rounds speak in
    carries: list[str]  # scan / while: the carries' names in `program`; [] otherwise
    events: list[Event]
    panes: list[Pane]
    residuals: list["Residual"]
    rounds: list[CallRound]  # scan / while: every round of the fixpoint; [] otherwise
    saved: list[int]  # inner events whose outputs are residuals (remat2: the policy saves)
    recomputed: list[int]  # inner events run now and again in the unknown program (remat2)
    branches: NotRequired[list["CallSplit"]]  # cond: branches 1.. split under the same unknowns


class MemoryPoint(TypedDict):
    """Live residual bytes after one step of the forward, then the backward pass; `eqn` is
    the step's equation in the forward (or the backward) pane."""
    step: int
    phase: Literal["forward", "backward"]
    bytes: int
    eqn: int | None


class MemoryAccount(TypedDict):
    """The one accounting of a split's residual memory, which the residual list, the policy
    cards and the memory chart all show: activations (residuals an equation of the forward
    pass computes) plus inputs kept (residuals that are an input or a constant, read by the
    backward pass as they are). total_bytes = activation_bytes + input_bytes."""
    activations: int
    activation_bytes: int
    inputs_kept: int
    input_bytes: int
    total_bytes: int


class MemoryLine(TypedDict):
    """One policy's residual memory over the forward and backward pass: the inputs kept
    throughout, the activations from the equation that makes each to its last reader;
    peak_bytes is the account's total."""
    policy: str  # "" for plain grad
    label: str
    peak_bytes: int
    recomputed: int
    account: MemoryAccount
    points: list[MemoryPoint]


class SavedResidual(TypedDict):
    """A line of jax.ad_checkpoint.print_saved_residuals."""
    aval: str
    bytes: int
    description: str
    line: int | None


class Policy(TypedDict):
    name: str
    label: str
    residual_count: int  # the account's activations + inputs kept
    residual_bytes: int  # the account's total
    account: MemoryAccount
    recomputed: int
    saved_residuals: list[SavedResidual]
    panes: list[Pane]


class LogEntry(TypedDict):
    primitive: str
    decision: Literal["executed", "recipe", "split"]
    value: NotRequired[list[str]]
    eqn_id: NotRequired[int]
    input_recipes: NotRequired[list[str]]


class Variable(TypedDict):
    repr: str
    name: str | None
    aval: str
    origin: str
    role: str
    value: str | None


class FrameEntry(TypedDict):
    i: int
    short: str
    collected: bool


class JaxprTraceView(TypedDict):
    log: list[LogEntry]
    program: Program
    out_known: list[bool]
    known_outputs: list[str]
    residuals: list[str]
    variables: list[Variable]


class DynamicTraceView(TypedDict):
    frame: list[FrameEntry]
    program: Program
    auto_dce_program: Program
    variables: list[Variable]


class RecordBase(TypedDict):
    version: RecordVersion
    mode: Mode
    fn: str
    args: list[Arg]
    # Run with real JAX 0.10.2, prints the programs the page shows, one per pane, in pane
    # order, each after a line `# pane: <pane id>`.
    jax_snippet: str
    # Residual memory over the forward and backward pass: grad one line, checkpoint one per
    # policy (in the order of `policies`), other modes none.
    memory: list["MemoryLine"]


class SplitRecord(RecordBase):
    decisions: list[Decision]
    program: Program
    known: Program
    unknown: Program
    out_unknowns: list[bool]
    # split mode: per output of the traced program, whether the request forced it into the
    # unknown program (JAX's `instantiate`); all false when it asked for none
    instantiate: NotRequired[list[bool]]
    residuals: list[Residual]
    residual_bytes: int  # memory_account's total
    memory_account: MemoryAccount
    events: list[Event]
    # Asked with open_calls false: the events (their `i`) that are calls, their inner splits
    # (`call`) left out; the same request with open_calls true has them. Absent otherwise.
    unopened_calls: NotRequired[list[int]]
    panes: list[Pane]


class JitRecord(RecordBase):
    program: Program
    consts: list[str]
    eager_constant_folding: bool
    const_fold_rules: list[str]
    events: list[Event]
    panes: list[Pane]


class GradRecord(SplitRecord):
    grads: list[str] | None
    backward: Program
    # None when asked with saved false (print_saved_residuals' trace left out): the same
    # request with saved true has them.
    saved_residuals: list[SavedResidual] | None
    saved_bytes: int | None
    recomputed: int


class LinearizeRecord(SplitRecord):
    """jax.linearize's split: the JVP program with primals known and tangents unknown, its
    known program the forward pass (panes "forward" and "linear"), no transpose."""


class CheckpointRecord(SplitRecord):
    backward: Program
    saved_residuals: list[SavedResidual]
    saved_bytes: int
    recomputed: int
    names: list[str]
    policies: list[Policy]  # in POLICY_ROWS order; only the selected one while others pend
    selected: str
    # The policies not answered yet (asked with only_selected), in POLICY_ROWS order: each
    # comes from checkpoint_policy as a PolicyAnswer. [] when the record is complete.
    pending_policies: list[str]


class PolicyAnswer(TypedDict):
    """One more policy of a checkpoint record asked with only_selected: its card and its
    memory line (an answer of pe_engine.explain.checkpoint_policy)."""
    policy: Policy
    memory: MemoryLine


class SignatureAnswer(TypedDict):
    """The function a source's requests trace (an answer of pe_engine.explain.signature): its
    name, its parameters in order (one input of the page each) and the line of its `def`."""
    name: str
    params: list[str]
    lineno: int


class InterpretersRecord(RecordBase):
    jaxpr_trace: JaxprTraceView
    dynamic_trace: DynamicTraceView


class EngineError(TypedDict):
    type: str
    message: str
    lineno: int | None
    input: NotRequired[str | None]  # the argument whose value is at fault
    traceback: NotRequired[str]


class ErrorRecord(TypedDict):
    error: EngineError


class MaskCell(TypedDict):
    """One known/unknown mask of the mask explorer: what the mode asked for (split, or grad's
    or checkpoint's linearized split) gives for it, counted. `mask` has one character per
    argument, in order: "1" known, "0" unknown."""
    mask: str
    known_eqns: int  # equations of the known program
    unknown_eqns: int  # equations of the unknown program
    residuals: int
    residual_bytes: int
    error: EngineError | None  # the error the mode gives for this mask (then all 0)


class MasksRecord(RecordBase):
    """Every known/unknown mask of a function of up to 5 inputs, from "00…0" (all unknown)
    to "11…1" (all known) in binary order. `traces`: how many times the function was traced
    (1 unless Python read a held input's value: then each mask that leaves such an input
    unknown is traced on its own). `args[i].known` echoes the request."""
    traced_eqns: int | None  # equations traced with every input known (None: that failed)
    traces: int
    masks: list[MaskCell]
    as_mode: str  # the mode whose split each cell counts (split, grad or checkpoint)
    policy: str | None  # checkpoint's policy (None for the other modes)


RECORDS = {"split": SplitRecord, "jit": JitRecord, "grad": GradRecord,
           "linearize": LinearizeRecord,
           "checkpoint": CheckpointRecord, "interpreters": InterpretersRecord,
           "masks": MasksRecord}
