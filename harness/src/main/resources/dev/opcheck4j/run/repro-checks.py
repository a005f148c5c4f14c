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
        real = tensors(call(*example('cpu')))
    except Exception as e:
        real = first_line(e)
    try:
        fake = tensors(call(*example('meta')))
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
    return None


args, kwargs = example('cpu')
verdict('test_faketensor', opcheck('test_faketensor', args, kwargs), observed())
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
args, kwargs = example()
chosen = [i for i, v in enumerate(args) if isinstance(v, torch.Tensor) and v.requires_grad] or \
         [i for i, v in enumerate(args) if isinstance(v, torch.Tensor) and v.is_floating_point()]
inputs = tuple(args[i].detach().requires_grad_() for i in chosen)


def f(*xs):
    return call([xs[chosen.index(i)] if i in chosen else v for i, v in enumerate(args)], kwargs)


if not inputs:
    done(CANNOT, 'cannot reproduce: the example has no floating tensor input to differentiate')
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
# input, their outputs compared bitwise)
a = tensors(call(*example()))
b = tensors(call(*example()))
differ = [i for i, (x, y) in enumerate(zip(a, b)) if not same(x.detach(), y.detach())]
verdict(None, None, 'output %d differs between two calls on the same input' % differ[0] if differ else None)
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
RETURNED = 'opcheck4j-repro: the call returned'
if CHILD:
    try:
        call(*example())
    finally:
        print(RETURNED, flush=True)
    sys.exit(0)
p = subprocess.run([sys.executable, os.path.abspath(__file__), LIBRARY], capture_output=True, text=True,
                   env=dict(os.environ, OPCHECK4J_REPRO_CHILD='1'))
if p.returncode < 0:
    done(REPRODUCED, 'reproduced: the call died of %s' % signal.Signals(-p.returncode).name)
if RETURNED not in p.stdout:
    done(REPRODUCED, 'reproduced: the call ended the process with exit code %d without returning' % p.returncode)
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
def reference(args, kwargs):
    scope = dict(zip([a.name for a in OP._schema.arguments], args))
    scope.update(kwargs)
    scope['torch'] = torch
    if 'def reference' in REFERENCE:
        exec(REFERENCE, scope)
        return scope['reference'](*args, **kwargs)
    return eval(REFERENCE, scope)


got = call(*example())
want = reference(*example())
try:
    torch.testing.assert_close(got, want, equal_nan=True, **TOLERANCE)
except AssertionError as e:
    done(REPRODUCED, 'reproduced: torch.testing.assert_close against the reference: ' + first_line(e))
done(NOT_REPRODUCED, 'not reproduced: the outputs match the reference')
