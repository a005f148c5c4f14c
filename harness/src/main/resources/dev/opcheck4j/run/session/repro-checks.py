# ---- test_schema
def observed():
    # opcheck4j's observation, made by hand: compare each input before and after the call, and where each
    # output's storage comes from, against what the schema declares
    args, kwargs = example()
    schema = OP._schema
    named = dict(zip([a.name for a in schema.arguments], args))
    named.update(kwargs)
    written = {a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write}
    before = {n: [t.detach().clone() for t in tensors(v)] for n, v in named.items()}
    out = call(args, kwargs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    inputs = [(n, t) for n, v in named.items() for t in tensors(v)]
    declared = [r.alias_info is not None for r in schema.returns]
    if CHECK == 'mutation.undeclared' and DEVICE != 'meta':
        for n, v in named.items():
            if n not in written:
                for b, t in zip(before[n], tensors(v)):
                    if not same(b, t.detach()):
                        return "argument '%s' changed, and the schema does not declare it written" % n
    if CHECK == 'mutation.unused' and DEVICE != 'meta' and written:
        if all(same(b, t.detach()) for n in written for b, t in zip(before[n], tensors(named[n]))):
            return 'no argument the schema declares written (%s) changed' % ', '.join(sorted(written))
    for i, o in enumerate(outs):
        if not isinstance(o, torch.Tensor) or (i < len(declared) and declared[i]):
            continue
        for n, t in inputs:
            if CHECK == 'alias.returns-input' and o._cdata == t._cdata:
                return "output %d is the input '%s' itself" % (i, n)
            if CHECK == 'alias.undeclared' and o.untyped_storage()._cdata == t.untyped_storage()._cdata:
                return "output %d shares its storage with input '%s', and the schema declares no alias" % (i, n)
        for j, p in enumerate(outs[:i]):
            if CHECK == 'alias.outputs' and isinstance(p, torch.Tensor) \
                    and o.untyped_storage()._cdata == p.untyped_storage()._cdata:
                return 'outputs %d and %d share storage, and the schema declares no alias' % (j, i)
    return None


args, kwargs = example()
verdict('test_schema', opcheck('test_schema', args, kwargs), observed())
# ---- test_faketensor
def observed():
    # opcheck4j's observation, made by hand: the op on meta tensors (its fake kernel) against the real kernel
    try:
        real_all = call(*example('cpu'))
        real = tensors(real_all)
    except Exception as e:
        real = first_line(e)
    try:
        fake_all = call(*example('meta'))
        fake = tensors(fake_all)
    except Exception as e:
        fake = first_line(e)
    if CHECK == 'fake.missing':
        return None if not isinstance(fake, str) else 'the op on meta tensors raised ' + fake
    if CHECK == 'fake.permissive':
        return 'the real kernel raised %s, the op on meta tensors did not' % real \
            if isinstance(real, str) and not isinstance(fake, str) else None
    if isinstance(real, str) or isinstance(fake, str):
        return None
    for i, (r, f) in enumerate(zip(real, fake)):
        if (r.dtype, r.shape, r.stride()) != (f.dtype, f.shape, f.stride()):
            return 'output %d: real %s %s strides %s, fake %s %s strides %s' % (
                i, r.dtype, list(r.shape), r.stride(), f.dtype, list(f.shape), f.stride())
    if len(real) != len(fake):
        return 'real %d tensor outputs, fake %d' % (len(real), len(fake))
    # the values of outputs that are not tensors (an int, a bool): opcheck's FakeTensor comparison looks at
    # tensors only
    listed = lambda v: list(v) if isinstance(v, (list, tuple)) else [v]
    for i, (r, f) in enumerate(zip(listed(real_all), listed(fake_all))):
        if not isinstance(r, torch.Tensor) and not isinstance(f, torch.Tensor) and r != f:
            return 'output %d is %r on meta, %r real' % (i, f, r)
    return None


args, kwargs = example('cpu')
pytorch = opcheck('test_faketensor', args, kwargs)
# an op whose output sizes or values depend on its input's values, or that changes its input's metadata in
# place, is not compared on fake and real tensors: not by PyTorch's CrossRefFakeMode, not by opcheck4j
crossref = [t for t in ('dynamic_output_shape', 'data_dependent_output', 'inplace_view') if tagged(t)]
if CHECK == 'fake.metadata' and crossref and not pytorch:
    done(NOT_REPRODUCED, "not reproduced: PyTorch's test_faketensor passed, and the op is tagged %s: its outputs on"
         " fake and real tensors are not compared" % crossref[0])
verdict('test_faketensor', pytorch, observed())
# ---- test_aot_dispatch_dynamic
# PyTorch's own test: opcheck's test_aot_dispatch_dynamic traces the op with FakeTensors whose sizes are
# symbolic (torch.compile(dynamic=True)'s road), where numel(), a data read or a guard on a data-dependent
# size raises; opcheck4j's trace.* checks make the same call on the companion's symbolic tensor
args, kwargs = example('cpu')
verdict('test_aot_dispatch_dynamic', opcheck('test_aot_dispatch_dynamic', args, kwargs), None)
# ---- test_autograd_registration
# PyTorch's test looks only at inputs that require grad: the example's floating tensors require it here,
# as opcheck4j's check makes them
args, kwargs = example()
args = mapped(args, lambda t: t.detach().requires_grad_() if t.is_floating_point() else t)
verdict('test_autograd_registration', opcheck('test_autograd_registration', args, kwargs), None)
# ---- autograd.meta
# PyTorch has no test of its own for backward on meta tensors: opcheck4j's observation, made by hand
args, kwargs = example('meta')
args = mapped(args, lambda t: t.detach().requires_grad_() if t.is_floating_point() else t)
inputs = [t for t in tensors(args) if t.requires_grad]
hand = None
try:
    outs = [o for o in tensors(call(args, kwargs)) if o.requires_grad]
    if outs and inputs:
        torch.autograd.grad(outs, inputs, [torch.ones_like(o) for o in outs], allow_unused=True)
except Exception as e:
    hand = 'backward on meta tensors raised ' + first_line(e)
verdict(None, None, hand)
# ---- gradcheck
inputs, f = differentiated()
if CHECK == 'gradcheck.jacobian':
    # PyTorch's torch.autograd.gradcheck, with the settings opcheck4j used; where fast mode passes, slow mode
    # too, as opcheck4j compares (slow mode also runs backward twice: its reentrancy check)
    pytorch = None
    for mode in sorted({GRADCHECK['fast_mode'], False}, reverse=True):
        try:
            torch.autograd.gradcheck(f, inputs, **dict(GRADCHECK, fast_mode=mode))
        except Exception as e:
            pytorch = first_line(e) + (' (fast mode)' if mode else ' (slow mode)')
            break
    # opcheck4j's observation, made by hand: the analytical Jacobian of two identical forward and backward runs
    # (gradcheck's reentrancy check runs backward twice on one forward, so it cannot see state kept by forward)
    one, two = (torch.autograd.functional.jacobian(f, inputs) for _ in range(2))
    differ = [k for k, (a, b) in enumerate(zip(tensors(one), tensors(two))) if not same(a, b)]
    verdict('torch.autograd.gradcheck', pytorch, 'the Jacobian differs between two identical runs (block %d)' % differ[0]
            if differ else None)
# gradcheck.grad-output: PyTorch has no test of its own for it (gradcheck does not scale grad_output):
# opcheck4j's observation, made by hand, in float64: backward is linear in the incoming gradient
inputs = tuple(x.detach().double().requires_grad_() for x in inputs)
outs = [o for o in tensors(f(*inputs)) if o.requires_grad]
if not outs:
    done(CANNOT, 'cannot reproduce: no output requires grad')
g = [torch.ones_like(o) for o in outs]
one = torch.autograd.grad(outs, inputs, g, retain_graph=True, allow_unused=True)
two = torch.autograd.grad(outs, inputs, [2 * x for x in g], retain_graph=True, allow_unused=True)
zero = torch.autograd.grad(outs, inputs, [0 * x for x in g], allow_unused=True)
hand = None
for k, (a, b, z) in enumerate(zip(one, two, zero)):
    if z is not None and bool(z.ne(0).any()):
        hand = 'a zero grad_output gives a non-zero gradient of input %d' % k
    elif a is not None and b is not None and not torch.allclose(b, 2 * a):
        hand = 'doubling grad_output does not double the gradient of input %d' % k
verdict(None, None, hand)
# ---- registration
# PyTorch has no test of its own for what the dispatcher holds: opcheck4j's observation, made by hand on
# the op's dispatch table
name = OP._schema.name + ('.' + OP._schema.overload_name if OP._schema.overload_name else '')
KEYS = {'cpu': 'CPU', 'meta': 'Meta', 'cuda': 'CUDA'}
composite = [k for k in ('CompositeImplicitAutograd', 'CompositeExplicitAutograd',
                         'CompositeExplicitAutogradNonFunctional')
             if torch._C._dispatch_has_kernel_for_dispatch_key(name, k)]
hand = None
# the dump lists one line per kernel the op's libraries registered ("CPU: registered at ..."), after its
# name, schema, debug and alias analysis lines (_dispatch_has_kernel counts fallbacks too)
kernels = [line for line in torch._C._dispatch_dump(name).splitlines()
           if ': registered at' in line and not line.startswith('debug:')]
if CHECK == 'registration.any-kernel' and not kernels:
    hand = 'no kernel is registered for %s at any dispatch key' % name
if CHECK == 'registration.device-kernel' and not composite \
        and not torch._C._dispatch_has_kernel_for_dispatch_key(name, KEYS[DEVICE]):
    hand = 'no %s kernel (and no composite one) is registered for %s' % (KEYS[DEVICE], name)
verdict(None, None, hand)
# ---- determinism
# PyTorch has no test for determinism: opcheck4j's observation, made by hand (two calls on the same
# input, their outputs compared bitwise); an op tagged nondeterministic_seeded may vary by what it draws
# from torch's generator only, so each of its calls starts from the run's seed, as opcheck4j's do; an op
# passed a generator (example() makes a new one per call, seeded alike) draws from it alone, so torch's
# default generator starts from another seed in each call
SEEDED = tagged('nondeterministic_seeded')
GIVEN = any(isinstance(v, torch.Generator) for v in list(example()[0]) + list(example()[1].values()))


def seeded_call(k):
    if GIVEN:
        torch.manual_seed(SEED + k)
    elif SEEDED:
        torch.manual_seed(SEED)
    return tensors(call(*example()))


a, b = seeded_call(0), seeded_call(1)
differ = [i for i, (x, y) in enumerate(zip(a, b)) if not same(x.detach(), y.detach())]
verdict(None, None, 'output %d differs between two calls on the same input%s' % (
    differ[0], ', each passed a generator seeded alike (torch.manual_seed(%d), then %d)' % (SEED, SEED + 1) if GIVEN
    else ', each after torch.manual_seed(%d) (the op is tagged nondeterministic_seeded)' % SEED if SEEDED else '')
    if differ else None)
# ---- noncontiguous
# PyTorch has no test for strided inputs: opcheck4j's observation, made by hand: the op on non-contiguous
# copies of its tensor inputs gives what it gives on contiguous ones (compared by torch.testing.assert_close
# with its default tolerance)
def strided(t):
    if t.dim() == 0:
        return t
    base = torch.empty(tuple(t.shape[:-1]) + (2 * t.shape[-1],), dtype=t.dtype, device=t.device)
    nc = base[..., ::2]
    nc.copy_(t.detach())
    return nc.requires_grad_() if t.requires_grad else nc


def contiguous(t):
    c = t.detach().contiguous().clone()
    return c.requires_grad_() if t.requires_grad else c


hand = None
args, kwargs = example()
want = tensors(call(mapped(args, contiguous), kwargs))
for name, variant in (('the example', example()[0]), ('non-contiguous copies', mapped(args, strided))):
    got = tensors(call(variant, kwargs))
    try:
        torch.testing.assert_close([t.detach() for t in got], [t.detach() for t in want], equal_nan=True)
    except AssertionError as e:
        hand = 'on %s the op gives other values than on contiguous copies: %s' % (name, first_line(e))
        break
verdict(None, None, hand)
# ---- kernel.error
# The kernel raised on an input the spec says is valid; PyTorch has no test of its own for that: the call,
# made by hand
try:
    call(*example())
except Exception as e:
    done(REPRODUCED, 'reproduced by hand: the kernel raised ' + first_line(e))
done(NOT_REPRODUCED, 'not reproduced: the kernel returned')
# ---- kernel.crash
# The call runs in a child process: the crash kills the child, and this script reports its signal (or the
# exit of a kernel that ended the process without returning)
# (on cpu, the call on meta tensors follows: opcheck4j's fake checks call the op's Meta kernel in the same
# worker, so a crash found there is reported on cpu)
RETURNED = 'opcheck4j-repro: the call returned'
CALLING = 'opcheck4j-repro: calling on '
if CHILD:
    print(CALLING + DEVICE, flush=True)
    try:
        call(*example())
    finally:
        print(RETURNED, flush=True)
    if DEVICE == 'cpu':
        print(CALLING + 'meta', flush=True)
        try:
            call(*example('meta'))
        except Exception:
            pass  # an error is no crash
    sys.exit(0)
p = subprocess.run([sys.executable, os.path.abspath(__file__), LIBRARY], capture_output=True, text=True,
                   env=dict(os.environ, OPCHECK4J_REPRO_CHILD='1'))
on = ([line[len(CALLING):] for line in p.stdout.splitlines() if line.startswith(CALLING)] or [DEVICE])[-1]
if p.returncode < 0:
    done(REPRODUCED, 'reproduced: the call on %s died of %s' % (on, signal.Signals(-p.returncode).name))
if RETURNED not in p.stdout or on != DEVICE and p.returncode != 0:
    done(REPRODUCED, 'reproduced: the call on %s ended the process with exit code %d without returning' % (
        on, p.returncode))
done(NOT_REPRODUCED, 'not reproduced: the call returned (exit code %d) %s' % (
    p.returncode, (p.stderr.strip().splitlines() or [''])[-1]))
# ---- kernel.timeout
# The call runs in a child process, given the deadline opcheck4j gave it
if CHILD:
    call(*example())
    sys.exit(0)
try:
    p = subprocess.run([sys.executable, os.path.abspath(__file__), LIBRARY], capture_output=True, text=True,
                       env=dict(os.environ, OPCHECK4J_REPRO_CHILD='1'), timeout=DEADLINE)
except subprocess.TimeoutExpired:
    done(REPRODUCED, 'reproduced: the call did not return within %s s' % DEADLINE)
done(NOT_REPRODUCED, 'not reproduced: the call ended with exit code %d' % p.returncode)
# ---- reference.values
# torch.testing.assert_close of the op's outputs against the spec's reference, with the spec's tolerance
# (assert_close's default for the dtype when the spec gives none)
got = call(*example())
want = reference(*example())
try:
    torch.testing.assert_close(got, want, equal_nan=True, **TOLERANCE)
except AssertionError as e:
    done(REPRODUCED, 'reproduced: torch.testing.assert_close against the reference: ' + first_line(e))
done(NOT_REPRODUCED, 'not reproduced: the outputs match the reference')
# ---- schema
# PyTorch has no test of its own for a schema's rules (torch.library checks the schemas it infers, not the
# ones a library declares): opcheck4j's observation, made by hand on the op's schema (OP._schema)
schema = OP._schema
args_ = schema.arguments
hand = None


def sets(info):
    return set() if info is None else set(info.before_set)


def is_tensor(t):
    return isinstance(t, torch.TensorType)


if CHECK == 'schema.alias-target':
    known = set().union(*[sets(a.alias_info) for a in args_])
    for i, r in enumerate(schema.returns):
        if sets(r.alias_info) - known:
            hand = 'return %d is in alias set %s, and no argument is' % (i, sorted(sets(r.alias_info)))
elif CHECK == 'schema.functionalizable':
    aliased = [i for i, r in enumerate(schema.returns) if r.alias_info is not None]
    if aliased:
        hand = 'return %d has an alias annotation, which functionalization rejects for a custom op' % aliased[0]
    if example is not None and aliased:
        # PyTorch's own test: opcheck's test_aot_dispatch_dynamic functionalizes the op (torch.compile's road)
        args, kwargs = example()
        verdict('test_aot_dispatch_dynamic', opcheck('test_aot_dispatch_dynamic', args, kwargs), hand)
elif CHECK == 'schema.inplace-name':
    if schema.name.endswith('_') and not schema.name.split('::')[-1].startswith('__') and \
            not (args_ and args_[0].alias_info is not None and args_[0].alias_info.is_write):
        hand = "the op is named like an in-place op, and its first argument '%s' is not declared Tensor(a!)" % (
            args_[0].name if args_ else '')
elif CHECK == 'schema.mutable-args':
    for a in args_:
        if a.kwarg_only and a.name.startswith('out') and is_tensor(a.type) and \
                not (a.alias_info is not None and a.alias_info.is_write):
            hand = "keyword-only tensor argument '%s' is not declared Tensor(a!)" % a.name
    if not schema.returns and not any(a.alias_info is not None and a.alias_info.is_write for a in args_):
        hand = 'the op returns nothing and declares no argument it writes (Tensor(a!))'
elif CHECK == 'schema.out-variant':
    outs = [a for a in args_ if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write]
    rets = list(schema.returns)
    if outs and rets and ([sets(r.alias_info) for r in rets] != [sets(a.alias_info) for a in outs]
                          or any(r.alias_info is None or not r.alias_info.is_write for r in rets)):
        hand = 'an out= op returns %s, not nothing nor exactly its out arguments (%s)' % (
            str(schema).split(' -> ')[-1], ', '.join(a.name for a in outs))
elif CHECK == 'schema.types':
    # the types a custom op may take and return (those of torch.library, with int[] and optional returns)
    scalar = {'Tensor', 'int', 'SymInt', 'float', 'bool', 'str', 'number', 'Scalar', 'ScalarType', 'Device',
              'Layout', 'MemoryFormat', 'Generator'}
    lists = {'List[%s]' % t for t in ('Tensor', 'Optional[Tensor]', 'int', 'SymInt', 'float', 'bool', 'number',
                                       'Scalar')}
    returned = {'Tensor', 'List[Tensor]', 'int', 'SymInt', 'List[int]', 'List[SymInt]', 'float', 'bool', 'number',
                'Scalar'}

    def bare(t):
        t = str(t)
        return t[len('Optional['):-1] if t.startswith('Optional[') and not t.startswith('Optional[List') else t

    for a in args_:
        if bare(a.type) not in scalar | lists and str(a.type) not in lists:
            hand = "argument '%s' has type %s, which a custom op cannot take" % (a.name, a.type)
    for i, r in enumerate(schema.returns):
        if bare(r.type) not in returned and not (str(r.type) in returned):
            hand = hand or 'return %d has type %s, which a custom op cannot return' % (i, r.type)
else:
    done(CANNOT, 'cannot reproduce: this script knows no observation for check %r' % CHECK)
verdict(None, None, hand)
# ---- registration.dangling
# PyTorch has no test of its own for an impl without a def: opcheck4j's observation, made by hand with the
# dispatcher's own list (torch._C._dispatch_find_dangling_impls, Dispatcher::findDanglingImpls)
wanted = 'name: ' + OP_NAME
dangling = [d for d in torch._C._dispatch_find_dangling_impls() if wanted in d.splitlines()[:2]
            or wanted + '\n' in d or d.splitlines()[0].strip().endswith(OP_NAME)]
verdict(None, None, 'the dispatcher holds a kernel for %s, an operator no library defined' % OP_NAME
        if dangling else None)
# ---- registration.exists
# the dispatcher's own lookup of the name (Dispatcher::findSchema), after loading the library
try:
    torch._C._dispatch_find_schema_or_throw(OP_NAME.partition('.')[0], OP_NAME.partition('.')[2])
    missing = None
except RuntimeError as e:
    missing = first_line(e)
verdict(None, None, missing)
# ---- torchscript
# PyTorch has no test of its own that TorchScript reaches a custom op's overload: opcheck4j's observation,
# made by hand with PyTorch's TorchScript
import io
import textwrap

args, kwargs = example()
direct = tensors(call(args, kwargs))
packet = 'torch.ops.%s.%s' % tuple(OP._schema.name.split('::'))


def annotation(t):
    return str(t).replace('number', 'float')


if CHECK == 'torchscript.call':
    # a script function calling the op by its name, as TorchScript source does: TorchScript picks the overload
    names = [a.name for a in OP._schema.arguments]
    params = ['%s: %s' % (n, annotation(a.type)) for n, a in zip(names, OP._schema.arguments)
              if n in kwargs or names.index(n) < len(args)]
    given = names[:len(args)]
    source = 'def f(%s):\n    return %s(%s)\n' % (', '.join(params), packet,
                                                  ', '.join(given + ['%s=%s' % (k, k) for k in kwargs]))
    fn = torch.jit.CompilationUnit(source).f
    bound = [n.schema() for n in fn.graph.nodes() if n.kind() == OP._schema.name]
    hand = None
    if bound and bound[0] != str(OP._schema):
        hand = 'TorchScript binds %s to %s, not to %s' % (packet, bound[0], OP._schema)
    else:
        scripted = tensors(fn(*example()[0], **example()[1]))
        if not all(same(a.detach(), b.detach()) for a, b in zip(scripted, direct)):
            hand = "TorchScript's call gives other outputs than the direct call"
    verdict(None, None, hand)
# torchscript.roundtrip: a module traced through the exact overload (the graph names it), saved with
# torch.jit.save and loaded back with torch.jit.load: the loader binds the saved call by name and types again
constants = [v for v in args if not isinstance(v, torch.Tensor)]


class Call(torch.nn.Module):
    def forward(self, *xs):
        left = iter(xs)
        return OP(*[next(left) if isinstance(v, torch.Tensor) else v for v in args], **kwargs)


traced = torch.jit.trace(Call(), tuple(v.detach() for v in args if isinstance(v, torch.Tensor)), check_trace=False)
buffer = io.BytesIO()
torch.jit.save(traced, buffer)
buffer.seek(0)
hand = None
try:
    loaded = torch.jit.load(buffer)
except Exception as e:
    hand = 'the saved module does not load: ' + first_line(e)
else:
    bound = [n.schema() for n in loaded.graph.nodes() if n.kind() == OP._schema.name]
    again = tensors(loaded(*[v.detach() for v in example()[0] if isinstance(v, torch.Tensor)]))
    if bound and bound[0] != str(OP._schema):
        hand = 'saved and loaded, the call binds to %s, not to %s (saved code: %s)' % (
            bound[0], OP._schema, loaded.code.strip().splitlines()[-1].strip())
    elif not all(same(a.detach(), b.detach()) for a, b in zip(again, direct)):
        hand = 'saved and loaded, the module gives other outputs than the direct call'
verdict(None, None, hand)
# ---- generate.examples
# PyTorch has no example synthesizer: opcheck4j's observation, made by hand on candidates like the ones its
# generator tries first (every tensor argument float32 of one of these shapes, other arguments their defaults,
# else 1, 1.0, False, [1]); opcheck4j tried more candidates than these
SHAPES = [(3, 4), (4,), (3, 3), (2, 3, 4), (1,), (), (2, 2, 2, 2)]
tried, first = 0, None
for shape in SHAPES:
    values = {}
    for a in OP._schema.arguments:
        kind = str(a.type)
        if a.has_default_value():
            continue
        values[a.name] = torch.rand(shape) if 'Tensor' in kind and 'List' not in kind else \
            [torch.rand(shape)] if 'Tensor' in kind else [1] if 'List' in kind else 1.0 if kind == 'float' else \
            False if kind == 'bool' else 1
    tried += 1
    try:
        call([], values)
        done(NOT_REPRODUCED, 'not reproduced: the kernel accepts %d-d float32 tensors of shape %s' % (len(shape), shape))
    except Exception as e:
        first = first or first_line(e)
done(REPRODUCED, 'reproduced by hand: the kernel raised on each of %d candidate inputs (%s)' % (tried, first))
# ---- reference.grad
# PyTorch has no test of its own for gradients against a reference: opcheck4j's observation, made by hand
# (torch.autograd.grad of the op and of the spec's reference, float64 copies of the same inputs, the same
# random grad_outputs, compared with torch.testing.assert_close)
def float64(args):
    return mapped(args, lambda t: t.detach().double().requires_grad_(t.requires_grad) if t.is_floating_point()
                  else t)


base, kwargs = example()
if not any(t.requires_grad for t in tensors(base)):
    base = mapped(base, lambda t: t.detach().requires_grad_() if t.is_floating_point() else t)
mine, theirs = float64(base), float64(base)
got, want = tensors(call(mine, kwargs)), tensors(reference(theirs, kwargs))
got, want = [o for o in got if o.requires_grad], [o for o in want if o.requires_grad]
if not got or len(got) != len(want):
    done(CANNOT, 'cannot reproduce: the op has %d outputs that require grad, the reference %d' % (len(got), len(want)))
try:
    torch.testing.assert_close([o.detach() for o in got], [o.detach() for o in want], equal_nan=True, **TOLERANCE)
except AssertionError as e:
    done(CANNOT, "cannot reproduce: the values already differ (reference.values' finding): " + first_line(e))
generator = torch.Generator().manual_seed(0)
grads = [torch.rand(o.shape, dtype=o.dtype, generator=generator) * 2 - 1 for o in got]
leaves = [t for t in tensors(mine) if t.requires_grad]
others = [t for t in tensors(theirs) if t.requires_grad]
a = torch.autograd.grad(got, leaves, grads, allow_unused=True)
b = torch.autograd.grad(want, others, grads, allow_unused=True)
hand = None
for k, (x, y, t) in enumerate(zip(a, b, leaves)):
    x = torch.zeros_like(t) if x is None else x
    y = torch.zeros_like(t) if y is None else y
    try:
        torch.testing.assert_close(x, y, equal_nan=True, **(TOLERANCE or dict(atol=1e-7, rtol=1e-7)))
    except AssertionError as e:
        hand = 'the gradient of input %d differs from the reference\'s: %s' % (k, first_line(e))
        break
verdict(None, None, hand)
# ---- memory.bounds
# PyTorch has no test for reads and writes outside a tensor's storage (its own kernels are checked with
# AddressSanitizer builds): opcheck4j's observation, made by hand. Each tensor argument (each element of a
# Tensor[] too) is copied into memory this script maps, its storage ending (then starting) where a page no
# access is allowed to begins (ends); the other bytes of the mapping hold a canary. The call runs in a child
# process, which a touch of the guard page kills with SIGSEGV.
# memory.readonly-input, which PyTorch has no test for either: each tensor argument the schema does not
# declare written (Tensor(a!)) is copied into pages made read-only (mprotect PROT_READ), so that a write, even
# one the kernel undoes before returning, kills the child with SIGSEGV.
import ctypes
import mmap

RETURNED = 'opcheck4j-repro: the call returned'
CANARY = 0xA5


def guarded(t, side, keep):
    """t copied into mapped memory whose guard page lies just past its storage's end ('end') or before its start;
    or ('readonly') into pages made read-only, without guard or canary."""
    size = t.element_size()
    span = (t.storage_offset() + 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))) * size
    pages = -(-span // mmap.PAGESIZE)
    m = mmap.mmap(-1, (pages + (0 if side == 'readonly' else 2)) * mmap.PAGESIZE)
    m.write(bytes([CANARY]) * len(m))
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    guard = (pages + 1) * mmap.PAGESIZE if side == 'end' else 0
    start = guard - span if side == 'end' else 0 if side == 'readonly' else mmap.PAGESIZE
    flat = torch.frombuffer(m, dtype=torch.uint8, count=span, offset=start).view(t.dtype)
    g = flat.as_strided(t.shape, t.stride(), t.storage_offset())
    g.copy_(t.detach())
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    protected = libc.mprotect(base, len(m), 1) if side == 'readonly' else libc.mprotect(base + guard, mmap.PAGESIZE, 0)
    if protected != 0:
        done(CANNOT, 'cannot reproduce: mprotect failed (errno %d)' % ctypes.get_errno())
    if side != 'readonly':
        keep.append((m, start, span, guard))
    else:
        keep.append(m)  # kept mapped until the process ends; no canary to look at
    return g.requires_grad_() if t.requires_grad else g


READ_ONLY = CHECK == 'memory.readonly-input'
if CHILD:
    side = os.environ['OPCHECK4J_REPRO_SIDE']
    keep = []
    args, kwargs = example()
    names = [a.name for a in OP._schema.arguments]
    written = {a.name for a in OP._schema.arguments if a.alias_info is not None and a.alias_info.is_write}

    def guard(name, v):
        if READ_ONLY and name in written:
            return v
        return mapped(v, lambda t: guarded(t, side, keep) if t.numel() > 0 else t)
    args = [guard(n, v) for n, v in zip(names, args)]
    kwargs = {k: guard(k, v) for k, v in kwargs.items()}
    if READ_ONLY and not keep:
        done(CANNOT, 'cannot reproduce: no tensor argument the schema leaves immutable has elements')
    try:
        call(args, kwargs)
    finally:
        print(RETURNED, flush=True)
    for m, start, span, guard in [k for k in keep if isinstance(k, tuple)]:
        outside = [i for i in range(len(m)) if not (start <= i < start + span) and
                   not (guard <= i < guard + mmap.PAGESIZE) and m[i] != CANARY]
        if outside:
            print('opcheck4j-repro: the kernel wrote %d bytes outside a storage, the first at byte %d from its start'
                  % (len(outside), outside[0] - start), flush=True)
            sys.exit(1)
    sys.exit(0)
hand = None
for side in ('readonly',) if READ_ONLY else ('end', 'start'):
    p = subprocess.run([sys.executable, os.path.abspath(__file__), LIBRARY], capture_output=True, text=True,
                       env=dict(os.environ, OPCHECK4J_REPRO_CHILD='1', OPCHECK4J_REPRO_SIDE=side))
    where = 'past the end' if side == 'end' else 'before the start'
    if p.returncode == CANNOT:
        done(CANNOT, p.stdout.strip().splitlines()[-1])
    if p.returncode < 0 and READ_ONLY:
        hand = 'with every tensor argument the schema leaves immutable in read-only pages, the call died of %s' % (
            signal.Signals(-p.returncode).name)
    elif p.returncode < 0:
        hand = 'with every tensor argument guarded %s, the call died of %s' % (where, signal.Signals(-p.returncode).name)
    elif 'outside a storage' in p.stdout:
        hand = p.stdout.strip().splitlines()[-1].replace('opcheck4j-repro: ', '') + ' (' + where + ' side)'
    elif RETURNED not in p.stdout:
        done(CANNOT, 'cannot reproduce: the call raised with guarded arguments: %s' % (
            (p.stderr.strip().splitlines() or [''])[-1]))
    if hand:
        break
verdict(None, None, hand)
# ---- memory.uninitialized
# PyTorch's own tool for it: torch.utils.deterministic.fill_uninitialized_memory (with deterministic
# algorithms on, new memory from torch.empty holds NaN, or an integer's largest value). opcheck4j fills new
# memory with zeros: this script does the same through libc10's allocator flag where it finds it, and
# compares the outputs of the two calls bitwise (the observation by hand)
import ctypes


def zero_fill_flag():
    for line in open('/proc/self/maps'):
        path = line.split()[-1]
        if os.path.basename(path).startswith('libc10.so'):
            try:
                return ctypes.c_bool.in_dll(ctypes.CDLL(path), 'FLAGS_caffe2_cpu_allocator_do_zero_fill')
            except ValueError:
                return None
    return None


def outputs():
    args, kwargs = example()
    out = tensors(call(args, kwargs))
    written = [t for a, v in zip(OP._schema.arguments, args) if a.alias_info is not None and a.alias_info.is_write
               for t in tensors(v)]
    return [t.detach().clone() for t in out + written]


def filled():
    torch.use_deterministic_algorithms(True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        return outputs()
    finally:
        torch.use_deterministic_algorithms(False)


flag = zero_fill_flag()
if flag is not None:
    flag.value = True
zeros = outputs()
if flag is not None:
    flag.value = False
nan = filled()
again = filled()
differ = [i for i, (a, b) in enumerate(zip(zeros, nan)) if not same(a, b)]
if differ and not all(same(a, b) for a, b in zip(nan, again)):
    done(CANNOT, 'cannot reproduce: the outputs change from call to call with the same fill (determinism)')
verdict(None, None, 'output %d differs between %s and NaN-filled (fill_uninitialized_memory) new memory' % (
    differ[0], 'zero-filled' if flag is not None else 'unfilled') if differ else None)
# ---- memory.bool-bytes
# PyTorch tests this for its own ops only (OpInfo's test_non_standard_bool_values): opcheck4j's observation,
# made by hand: each bool tensor argument's true elements stored as the bytes 2..255 (false stays 0), same
# sizes, strides and offset, and the outputs compared with those of the 0/1 bools
def bytes_of(t):
    if t.dtype != torch.bool:
        return t
    span = t.storage_offset() + 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) if t.numel() else 0
    u = torch.zeros(span, dtype=torch.uint8).as_strided(t.shape, t.stride(), t.storage_offset())
    pattern = (torch.arange(t.numel()) % 254 + 2).to(torch.uint8).reshape(t.shape)
    u.copy_(torch.where(t, pattern, torch.zeros_like(pattern)))
    return u.view(torch.bool)


def results(change):
    args, kwargs = example()
    if change:
        args, kwargs = mapped(args, bytes_of), {k: mapped(v, bytes_of) for k, v in kwargs.items()}
    out = tensors(call(args, kwargs))
    written = [t for a, v in zip(OP._schema.arguments, args) if a.alias_info is not None and a.alias_info.is_write
               for t in tensors(v)]
    return [(t != 0) if t.dtype == torch.bool else t.detach().clone() for t in out + written]


plain, changed = results(False), results(True)
differ = [i for i, (a, b) in enumerate(zip(plain, changed)) if not same(a, b)]
if differ and not all(same(a, b) for a, b in zip(changed, results(True))):
    done(CANNOT, 'cannot reproduce: the outputs change from call to call on one input (determinism)')
verdict(None, None, 'output %d differs when true is stored as the bytes 2..255' % differ[0] if differ else None)
# ---- out
# PyTorch tests out= arguments of its own ops only (OpInfo's test_out, in test/test_ops.py): its cases, run
# by hand on this op's write-only arguments (keyword-only Tensor(a!), or any Tensor(a!) of an op tagged out)
names = [a.name for a in OP._schema.arguments]
tagged = any(str(t).split('.')[-1] in ('out', 'out_variant') for t in getattr(OP, 'tags', ()))
WRITE_ONLY = [a.name for a in OP._schema.arguments if a.alias_info is not None and a.alias_info.is_write
              and isinstance(a.type, torch.TensorType) and (a.kwarg_only or tagged)]
if not WRITE_ONLY:
    done(CANNOT, 'cannot reproduce: the op has no write-only (out=) argument')


def with_out(replace):
    """Calls the op on the example, each write-only argument t replaced by replace(t); outputs and written."""
    args, kwargs = example()
    args = [replace(v) if n in WRITE_ONLY and isinstance(v, torch.Tensor) else v for n, v in zip(names, args)]
    kwargs = {k: replace(v) if k in WRITE_ONLY and isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    given = dict(zip(names, args), **kwargs)
    try:
        out = tensors(call(args, kwargs))
    except Exception as e:
        return first_line(e), None
    return [t.detach() for t in out], [given[n] for n in WRITE_ONLY if n in given]


def close(a, b):
    try:
        torch.testing.assert_close(a, b, equal_nan=True, **TOLERANCE)
        return None
    except AssertionError as e:
        return first_line(e)


if CHECK == 'out.reads-out':
    # test_out case 0: "out= values have no effect on the computation"; out filled with NaN (largest value,
    # true), then a large finite value (smallest value, false)
    def fill(first):
        def make(t):
            if t.dtype == torch.bool:
                v = first
            elif t.is_floating_point():
                v = float('nan') if first else (1e3 if t.dtype in (torch.float16, torch.bfloat16) else 1e6)
            else:
                v = torch.iinfo(t.dtype).max if first else torch.iinfo(t.dtype).min
            return torch.full(t.shape, v, dtype=t.dtype, device=t.device)
        return make
    (o1, w1), (o2, w2) = with_out(fill(True)), with_out(fill(False))
    if isinstance(o1, str) or isinstance(o2, str):
        done(CANNOT, 'cannot reproduce: the call raised: %s' % (o1 if isinstance(o1, str) else o2))
    hand = close(o1, o2) and 'the outputs depend on what out held: ' + close(o1, o2)
    def holds(t, first):
        f = fill(first)(t)
        return (t == f) | (t.isnan() & f.isnan()) if t.is_floating_point() else t == f
    for n, a, b in zip(WRITE_ONLY, w1, w2):
        kept = holds(a.detach(), True) & holds(b.detach(), False)
        if hand is None and close(a[~kept], b[~kept]):
            hand = "argument '%s' depends on what it held: %s" % (n, close(a[~kept], b[~kept]))
    verdict(None, None, hand)
o0, w0 = with_out(lambda t: t)
if isinstance(o0, str):
    done(CANNOT, 'cannot reproduce: the example as given raised: ' + o0)
hand = None
if CHECK == 'out.strides':
    # test_out case 1: "out= with the correct shape, dtype, and device, but noncontiguous. Expected behavior:
    # strides are respected and out storage is not changed"
    made = {}

    def strided(t):
        if t.numel() < 2:
            return t
        s = torch.zeros(t.numel() * 2, dtype=t.dtype, device=t.device)[::2].view(t.shape) if t.dim() == 1 else \
            torch.zeros(tuple(t.shape[:-1]) + (2 * t.shape[-1],), dtype=t.dtype, device=t.device)[..., ::2]
        s.copy_(t)
        made[id(s)] = (s.stride(), s.data_ptr())
        return s
    o1, w1 = with_out(strided)
    if isinstance(o1, str):
        done(NOT_REPRODUCED, 'not reproduced: the kernel rejects a non-contiguous out= argument: ' + o1)
    for n, a, b in zip(WRITE_ONLY, w0, w1):
        if id(b) in made and (b.stride(), b.data_ptr()) != made[id(b)]:
            hand = "argument '%s' was reallocated: strides %s, were %s" % (n, b.stride(), made[id(b)][0])
        elif close(b.detach(), a.detach()):
            hand = "non-contiguous '%s' holds other values than a contiguous one: %s" % (n, close(b.detach(), a.detach()))
elif CHECK == 'out.shape':
    # test_out's resize case: an out= argument one element longer in its first dimension is rejected, or
    # resized and written; never left in the wrong shape
    def longer(t):
        sizes = (1,) if t.dim() == 0 else (t.shape[0] + 1,) + tuple(t.shape[1:])
        return torch.zeros(sizes, dtype=t.dtype, device=t.device)
    o1, w1 = with_out(longer)
    if isinstance(o1, str):
        done(NOT_REPRODUCED, 'not reproduced: the kernel rejects an out= argument of the wrong shape: ' + o1)
    for n, a, b in zip(WRITE_ONLY, w0, w1):
        if b.shape != a.shape:
            hand = "argument '%s' left in shape %s, the result's is %s" % (n, list(b.shape), list(a.shape))
        elif close(b.detach(), a.detach()):
            hand = "argument '%s' resized but holds other values: %s" % (n, close(b.detach(), a.detach()))
elif CHECK == 'out.dtype':
    # test_out's dtype case: an out= argument of another dtype of the same element size is rejected (or gets
    # the result converted), never the result's raw bytes
    OTHER = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16,
             torch.bfloat16: torch.int16, torch.int32: torch.float32, torch.int64: torch.float64,
             torch.bool: torch.int8, torch.uint8: torch.int8}
    o1, w1 = with_out(lambda t: torch.zeros(t.shape, dtype=OTHER.get(t.dtype, t.dtype), device=t.device))
    if isinstance(o1, str):
        done(NOT_REPRODUCED, 'not reproduced: the kernel rejects an out= argument of another dtype: ' + o1)
    for n, a, b in zip(WRITE_ONLY, w0, w1):
        if not same(b.detach(), a.detach().to(b.dtype)):
            hand = "argument '%s' of dtype %s holds other values than the result converted (%s instead of %s)" % (
                n, b.dtype, b.detach().flatten()[:3].tolist(), a.detach().to(b.dtype).flatten()[:3].tolist())
else:
    done(CANNOT, 'cannot reproduce: this script knows no observation for check %r' % CHECK)
verdict(None, None, hand)
# ---- variant.agree
# torch.testing.assert_close of the variant against the functional op on the same inputs, as OpInfo's
# test_variant_consistency_eager and test_out do for PyTorch's own ops (they cannot run on a custom op)
schema_name = OP._schema.name.split('::')[1]
overload = OP._schema.overload_name
functional = schema_name[:-1] if schema_name.endswith('_') else \
    schema_name[:-len('_out')] if schema_name.endswith('_out') else schema_name
inplace = schema_name.endswith('_') and not schema_name.endswith('_out')
if VARIANT_OF is not None:
    # the spec names the family ("variant_of"): the functional op, and whether this one is its in-place member;
    # for another op (OPCHECK4J_REPRO_OP), the same naming: the checked op's name less the functional's gives
    # the suffix to take off
    checked, named = CHECKED.split('::')[1].split('.')[0], VARIANT_OF[0].split('::')[1]
    suffix = checked[len(named):] if checked.startswith(named) else ''
    functional = named if OP_NAME == CHECKED or not suffix or not schema_name.endswith(suffix) \
        else schema_name[:-len(suffix)]
    inplace = VARIANT_OF[1]
FUNCTIONAL = getattr(getattr(torch.ops, OP._schema.name.split('::')[0]), functional).default
n_in = len(FUNCTIONAL._schema.arguments)
args, kwargs = example()
given = dict(zip([a.name for a in OP._schema.arguments], args), **kwargs)
ordered = [given[a.name] for a in OP._schema.arguments if a.name in given]
copies = [v.detach().clone() if isinstance(v, torch.Tensor) else v for v in ordered[:n_in]]
want = tensors(FUNCTIONAL(*copies))
hand = None
if inplace:
    before = args[0].data_ptr()
    call(args, kwargs)
    got = [args[0]]
    if args[0].data_ptr() != before:
        hand = "the in-place variant moved '%s' to new storage" % OP._schema.arguments[0].name
else:
    call(args, kwargs)
    got = [given[a.name] for a in OP._schema.arguments[n_in:] if a.name in given]
for k, (g, w) in enumerate(zip(got, want)):
    try:
        torch.testing.assert_close(g.detach(), w.detach(), equal_nan=True, **TOLERANCE)
    except AssertionError as e:
        hand = hand or 'argument %d after the call is not output %d of %s: %s' % (
            k if inplace else n_in + k, k, FUNCTIONAL._schema.name, first_line(e))
verdict(None, None, hand)
# ---- dtype
# PyTorch tests the dtypes of its own ops only (OpInfo's test_dtypes): opcheck4j's observation, made by hand:
# the example's data tensors (its floating ones; all, in an example with none) converted to each dtype
ALL = ['float32', 'float64', 'float16', 'bfloat16', 'bool', 'uint8', 'int8', 'int16', 'int32', 'int64']
args, kwargs = example()
floating = any(t.is_floating_point() for t in tensors(args) + tensors(list(kwargs.values())))


def data(t):
    return t.is_floating_point() or not floating


def converted(value, dtype):
    return value.detach().to(getattr(torch, dtype)) if isinstance(value, torch.Tensor) and data(value) else value


own = [str(t.dtype).replace('torch.', '') for t in tensors(args) if data(t)]
hand = None
if CHECK == 'dtype.declared':
    for dtype in DTYPES:
        a = [converted(v, dtype) for v in example()[0]]
        k = {n: converted(v, dtype) for n, v in kwargs.items()}
        grad = dtype.startswith('float') or dtype == 'bfloat16'
        if grad:
            a = [v.requires_grad_() if isinstance(v, torch.Tensor) and data(v) else v for v in a]
        try:
            out = [o for o in tensors(call(a, k)) if o.requires_grad]
        except Exception as e:
            hand = 'it raised on declared %s: %s' % (dtype, first_line(e))
            break
        leaves = [v for v in a if isinstance(v, torch.Tensor) and v.requires_grad]
        if out and leaves:
            try:
                torch.autograd.grad(out, leaves, [torch.ones_like(o) for o in out], allow_unused=True)
            except Exception as e:
                hand = '%s backward: %s' % (dtype, first_line(e))
                break
elif CHECK == 'dtype.unlisted':
    want = [t.detach().double() for t in tensors(call(*example()))]
    for dtype in [d for d in ALL if d not in DTYPES and d not in own]:
        a = [converted(v, dtype) for v in example()[0]]
        back = [v.to(getattr(torch, own[0])) if isinstance(v, torch.Tensor) and data(v) and own else v for v in a]
        try:
            got = [t.detach().double() for t in tensors(call(a, {n: converted(v, dtype) for n, v in kwargs.items()}))]
        except Exception:
            continue  # rejected, as it should be
        same_values = [t.detach().double() for t in tensors(call(back, kwargs))]
        rtol = {'float16': 1e-2, 'bfloat16': 0.16}.get(dtype, 1.3e-5 if dtype.startswith('float') else 0)
        try:
            torch.testing.assert_close(got, same_values, rtol=rtol, atol=rtol, equal_nan=True)
            hand = hand or 'it runs on %s, which the spec does not declare (works but not listed)' % dtype
        except AssertionError as e:
            hand = 'it runs on undeclared %s and gives other values: %s' % (dtype, first_line(e))
            break
else:
    done(CANNOT, 'cannot reproduce: this script knows no observation for check %r' % CHECK)
verdict(None, None, hand)
# ---- gradcheck.gradgrad
inputs, f = differentiated()
if not DOUBLE_BACKWARD:
    # the spec says the op has no second derivative: differentiating its backward must raise, as OpInfo's
    # test_fn_fail_gradgrad requires; by hand
    outs = [o for o in tensors(f(*inputs)) if o.requires_grad]
    try:
        first = torch.autograd.grad(outs, inputs, [torch.ones_like(o) for o in outs], create_graph=True,
                                    allow_unused=True)
        wrt = [g for g in first if g is not None and g.requires_grad]
        if wrt:
            torch.autograd.grad(wrt, inputs, [torch.ones_like(g) for g in wrt], allow_unused=True)
    except Exception as e:
        done(NOT_REPRODUCED, 'not reproduced: differentiating the backward raises, as declared: ' + first_line(e))
    verdict(None, None, 'the spec declares "double_backward": false, and the backward differentiates without raising')
# PyTorch's torch.autograd.gradgradcheck with opcheck4j's settings (fast mode, then slow mode where fast passes)
pytorch = None
for mode in sorted({GRADCHECK['fast_mode'], False}, reverse=True):
    try:
        torch.autograd.gradgradcheck(f, inputs, eps=GRADCHECK['eps'], atol=GRADCHECK['atol'], rtol=GRADCHECK['rtol'],
                                     fast_mode=mode)
    except Exception as e:
        pytorch = first_line(e) + (' (fast mode)' if mode else ' (slow mode)')
        break
verdict('torch.autograd.gradgradcheck', pytorch, None)
# ---- gradcheck.undefined-grad
# PyTorch's torch.autograd.gradcheck with check_undefined_grad (its default), and opcheck4j's observation by
# hand, in gradcheck's order: every output through autograd's UndefinedGrad node with zero grad_outputs (the
# op's backward gets every grad_output undefined), then for each output in turn, backward over the others
# with zero grad_outputs (the left-out one reaches the op's backward as an undefined gradient); every input
# gradient must be zero or undefined
inputs, f = differentiated()
pytorch = None
try:
    torch.autograd.gradcheck(f, inputs, eps=GRADCHECK['eps'], atol=GRADCHECK['atol'], rtol=GRADCHECK['rtol'],
                             check_undefined_grad=True)
except Exception as e:
    pytorch = first_line(e)
hand = None
outs = [o for o in tensors(f(*inputs)) if o.requires_grad]
cases = [("with every grad_output undefined at once", [torch._C._functions.UndefinedGrad()(o) for o in outs])]
cases += [("with output %d's grad_output undefined, the others' zero" % left, [o for i, o in enumerate(outs) if i != left])
          for left in range(len(outs))]
for which, roots in cases:
    try:
        got = torch.autograd.grad(roots, inputs, [torch.zeros_like(o) for o in roots], retain_graph=True,
                                  allow_unused=True)
    except Exception as e:
        hand = "%s, backward raised %s" % (which, first_line(e))
        break
    if any(g is not None and bool(g.ne(0).any()) for g in got):
        hand = "%s, an input's gradient is not zero" % which
        break
verdict('torch.autograd.gradcheck (check_undefined_grad)', pytorch, hand)
# ---- tags.pt2-compliant
# PyTorch's own counterpart: test_pt2_compliant_tag, which generate_opcheck_tests adds for each op: an op
# tagged pt2_compliant_tag fails it when any of its opcheck tests fails. Here torch.library.opcheck with all
# its test utils, on the example (the spec entry's first), each util's result looked at
if not tagged('pt2_compliant_tag'):
    done(NOT_REPRODUCED, 'not reproduced: the op is not tagged pt2_compliant_tag (neither registered nor declared)')
args, kwargs = example()
results = torch.library.opcheck(OP, args, kwargs, raise_exception=False)
failed = ['%s (%s)' % (util, first_line(r) if isinstance(r, BaseException) else r)
          for util, r in results.items() if r != 'SUCCESS']
verdict('test_pt2_compliant_tag', 'the op is tagged pt2_compliant_tag, and opcheck failed: ' + '; '.join(failed)
        if failed else None, None)
# ---- tags.inplace-view
# PyTorch's test_tags checks only the converse (an op that changes its input's sizes in place carries the
# tag): opcheck4j's observation, made by hand: output 0 of an op tagged inplace_view is its first Tensor(a!)
# argument, or shares its storage (a view of it)
schema = OP._schema
args, kwargs = example()
named = dict(zip([a.name for a in schema.arguments], args), **kwargs)
mutated = [a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write
           and isinstance(named.get(a.name), torch.Tensor)]
if not mutated:
    verdict(None, None, 'no Tensor(a!) argument in %s' % schema)
t = named[mutated[0]]
outs = tensors(call(args, kwargs))
hand = None
if not outs:
    hand = 'the op returns no tensor'
elif outs[0] is not t and outs[0].untyped_storage()._cdata != t.untyped_storage()._cdata:
    hand = "output 0 shares no storage with its mutated argument '%s': a new tensor" % mutated[0]
verdict(None, None, hand)
# ---- memory.cow-input
# PyTorch's test_cow_input (test/test_ops.py) runs on its own ops' OpInfos only: its steps, by hand. Each
# top-level tensor argument the schema does not declare written is replaced by torch._lazy_clone of a copy;
# after the call, and after a backward (seeded with lazily cloned ones) where gradients run, each must still be
# copy-on-write and hold its values.
args, kwargs = example()
names = [a.name for a in OP._schema.arguments]
written = {a.name for a in OP._schema.arguments if a.alias_info is not None and a.alias_info.is_write}
lazy = {}


def cow(name, v):
    if name in written or not isinstance(v, torch.Tensor) or v.layout != torch.strided or v.numel() == 0:
        return v
    base = v.detach().clone().requires_grad_(v.requires_grad)
    lazy[name] = (base, base.detach().clone(), torch._lazy_clone(base))
    return lazy[name][2]


args = [cow(n, v) for n, v in zip(names, args)]
kwargs = {k: cow(k, v) for k, v in kwargs.items()}
if not lazy:
    done(CANNOT, 'cannot reproduce: no tensor argument the schema leaves immutable has elements')
out = call(args, kwargs)
hand = [("argument '%s' materialized in the forward call" % n) for n, (b, c, l) in lazy.items()
        if not torch._C._is_cow_tensor(l)]
results = [o for o in tensors(out) if o.is_floating_point() and o.requires_grad]
inputs = [l for b, c, l in lazy.values() if l.requires_grad]
if not hand and results and inputs:
    grads = [torch._lazy_clone(torch.ones_like(r)) for r in results]
    torch.autograd.grad(results, inputs, grads, allow_unused=True, retain_graph=True)
    hand += [("argument '%s' materialized in the backward call" % n) for n, (b, c, l) in lazy.items()
             if not torch._C._is_cow_tensor(l)]
    hand += ['the gradient given for output %d materialized in the backward call' % i for i, g in enumerate(grads)
             if not torch._C._is_cow_tensor(g)]
for n, (b, c, l) in lazy.items():
    now = l if torch._C._is_cow_tensor(l) else b
    if not torch.allclose(now.detach(), c, rtol=0, atol=0, equal_nan=True):
        hand.append("argument '%s' changed its values" % n)
verdict(None, None, '; '.join(hand) or None)
# ---- sanitizer
# A sanitizer's report (sanitizer.address, sanitizer.undefined, sanitizer.thread): the call runs in a child
# process started as opcheck4j's workers were, with the sanitizer's runtime preloaded and its options
# (SANITIZER_ENV); the finding reproduces when the child prints the sanitizer's report
REPORTS = ('ERROR: AddressSanitizer', ': runtime error: ', 'WARNING: ThreadSanitizer')
if CHILD:
    call(*example())
    sys.exit(0)
p = subprocess.run([sys.executable, os.path.abspath(__file__), LIBRARY], capture_output=True, text=True,
                   env=dict(os.environ, OPCHECK4J_REPRO_CHILD='1', **SANITIZER_ENV))
said = [line.strip() for line in p.stderr.splitlines() if line.startswith('SUMMARY: ')
        or any(r in line for r in REPORTS)]
if said:
    done(REPRODUCED, 'reproduced: ' + said[-1])
done(NOT_REPRODUCED, 'not reproduced: no sanitizer report (exit code %d) %s' % (
    p.returncode, (p.stderr.strip().splitlines() or [''])[-1]))
