it('imports', () => {
  const mods = ['reflect-metadata','graphql','ethers','typeorm','pg','@apollo/server','type-graphql','express','sofa-api','class-validator','graphql-ws','ws','@peculiar/x509','pkijs','jsonwebtoken','graphql-jit','helmet','graphql-scalars','../src/app'];
  for (const m of mods) {
    const t = process.hrtime.bigint();
    try { require(m); } catch (e) { console.log('fail', m, String(e).slice(0,300)); }
    console.log(m, Number(process.hrtime.bigint() - t) / 1e6);
  }
});
