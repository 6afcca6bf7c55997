import struct
M=0xffffffff
def rotl(x,n): return ((x<<n)|(x>>(32-n)))&M
def qr(s,a,b,c,d):
    s[a]=(s[a]+s[b])&M; s[d]^=s[a]; s[d]=rotl(s[d],16)
    s[c]=(s[c]+s[d])&M; s[b]^=s[c]; s[b]=rotl(s[b],12)
    s[a]=(s[a]+s[b])&M; s[d]^=s[a]; s[d]=rotl(s[d],8)
    s[c]=(s[c]+s[d])&M; s[b]^=s[c]; s[b]=rotl(s[b],7)
def block(key,counter,stream,rounds=8):
    c=[0x61707865,0x3320646e,0x79622d32,0x6b206574]
    k=list(struct.unpack('<8I',key))
    s=c+k+[counter&M,counter>>32,stream&M,stream>>32]
    w=s[:]
    for _ in range(rounds//2):
        qr(w,0,4,8,12);qr(w,1,5,9,13);qr(w,2,6,10,14);qr(w,3,7,11,15)
        qr(w,0,5,10,15);qr(w,1,6,11,12);qr(w,2,7,8,13);qr(w,3,4,9,14)
    return [(w[i]+s[i])&M for i in range(16)]
class Stream:
    def __init__(self,seed,game,actor):
        self.key=struct.pack('<QQ',seed,game)+bytes(16); self.stream=actor; self.counter=0; self.buf=[]
    def u32(self):
        if not self.buf:
            self.buf=block(self.key,self.counter,self.stream); self.counter+=1
        return self.buf.pop(0)
    def u64(self):
        lo=self.u32(); hi=self.u32(); return lo|(hi<<32)
def below(st,bound):
    if bound==0: return 0
    thr=((1<<64)-bound)%bound
    while True:
        p=st.u64()*bound; lo=p&((1<<64)-1)
        if lo>=thr: return p>>64
def between(st,lo,hi):
    if lo>hi: lo,hi=hi,lo
    return lo+below(st,hi-lo+1)
def chance(st,n,d):
    return n!=0 and below(st,d)<n
def triangular(st,lo,hi):
    a=between(st,lo,hi); b=between(st,lo,hi); return (a+b)//2
def skewed(st,lo,hi):
    S=1<<20
    a=below(st,S+1); b=below(st,S+1)
    return lo+(hi-lo)*a*b//(S*S)
s=Stream(42,0,0); print("raw seed42 game0 white", [s.u64() for _ in range(4)])
s=Stream(42,7,2); print("raw seed42 game7 device", [s.u64() for _ in range(4)])
s=Stream(1,0,1); print("below 1000", [below(s,1000) for _ in range(8)])
s=Stream(1,0,1); print("between 100..=200", [between(s,100,200) for _ in range(8)])
s=Stream(1,0,3); print("chance 1/3", [chance(s,1,3) for _ in range(12)])
s=Stream(1,0,4); print("triangular 0..=1000000", [triangular(s,0,1000000) for _ in range(6)])
s=Stream(1,0,5); print("skewed 1000..=60000000", [skewed(s,1000,60000000) for _ in range(6)])
def gap_powers(n,d):
    powers=[]
    if n==0: return powers
    p=((d-n)<<64)//d
    while p!=0 and len(powers)<64: powers.append(p); p=(p*p)>>64
    return powers
def gap(st,powers):
    if not powers: return 0
    u=st.u64(); surv=1<<64; g=0
    for k in reversed(range(len(powers))):
        longer=(surv*powers[k])>>64
        if u<longer: surv=longer; g|=1<<k
    return g
def trial_successes(st,n,d,trials):
    powers=gap_powers(n,d); left=gap(st,powers); hits=[]
    for i in range(trials):
        if left==0: hits.append(i); left=gap(st,powers)
        else: left-=1
    return hits
s=Stream(1,0,20); print("trials 1/20, successes among 200", trial_successes(s,1,20,200))
s=Stream(1,0,22); print("trials 1/3000, first gaps", [gap(s,gap_powers(1,3000)) for _ in range(6)])
s=Stream(1,0,17); print("trials 1/2, successes among 24", trial_successes(s,1,2,24))
