//+------------------------------------------------------------------+
//|                                                  mlp_copencl.mq5 |
//+------------------------------------------------------------------+
// A two-layer perceptron (tanh hidden layer, linear output) trained by full-batch gradient descent
// on synthetic data, every kernel through the COpenCL class: the style of MQL5's neural-network
// code. It compiles against the standard library's <OpenCL/OpenCL.mqh> as well: the #include
// below is the only line to change (docs/mql5.md, "Switching from COpenCL").
#property script_show_inputs
#include <mqlcl/OpenCL.mqh>

input int    Steps=300;           // gradient steps
input double LearningRate=0.2;    // SGD step size
input int    Seed=7;              // MathSrand seed of the data and the initial weights
input int    ReportEvery=50;      // print the loss every this many steps

#define SAMPLES 64
#define INPUTS  4
#define HIDDEN  16

//--- kernels and buffers, by slot
#define K_HIDDEN      0
#define K_OUTPUT      1
#define K_BACK        2
#define K_UPDATE_OUT  3
#define K_UPDATE_IN   4
#define B_X           0
#define B_T           1
#define B_W1          2
#define B_B1          3
#define B_W2          4
#define B_B2          5
#define B_H           6
#define B_Y           7
#define B_DY          8
#define B_DH          9
#define B_ERR         10

//--- one work-item per hidden unit of a sample: h = tanh(x W1 + b1)
const string kForwardHidden=
   "__kernel void forward_hidden(__global const float *x,__global const float *w1,\r\n"+
   "                             __global const float *b1,__global float *h,int features,int hidden)\r\n"+
   "{\r\n"+
   "   int n=get_global_id(0)/hidden, j=get_global_id(0)%hidden;\r\n"+
   "   float s=b1[j];\r\n"+
   "   for(int d=0; d<features; d++)\r\n"+
   "      s+=x[n*features+d]*w1[d*hidden+j];\r\n"+
   "   h[n*hidden+j]=tanh(s);\r\n"+
   "}\r\n";
//--- one work-item per sample: y = h W2 + b2, the squared error, dLoss/dy of the mean
const string kForwardOutput=
   "__kernel void forward_output(__global const float *h,__global const float *w2,\r\n"+
   "                             __global const float *b2,__global const float *t,\r\n"+
   "                             __global float *y,__global float *dy,__global float *err,\r\n"+
   "                             int hidden,float inv_samples)\r\n"+
   "{\r\n"+
   "   int n=get_global_id(0);\r\n"+
   "   float s=b2[0];\r\n"+
   "   for(int j=0; j<hidden; j++)\r\n"+
   "      s+=h[n*hidden+j]*w2[j];\r\n"+
   "   float e=s-t[n];\r\n"+
   "   y[n]=s;\r\n"+
   "   err[n]=e*e;\r\n"+
   "   dy[n]=2.0f*e*inv_samples;\r\n"+
   "}\r\n";
//--- back through W2 and tanh: dh = dy W2' (1 - h^2)
const string kBackward=
   "__kernel void backward_hidden(__global const float *dy,__global const float *w2,\r\n"+
   "                              __global const float *h,__global float *dh,int hidden)\r\n"+
   "{\r\n"+
   "   int n=get_global_id(0)/hidden, j=get_global_id(0)%hidden;\r\n"+
   "   float a=h[n*hidden+j];\r\n"+
   "   dh[n*hidden+j]=dy[n]*w2[j]*(1.0f-a*a);\r\n"+
   "}\r\n";
//--- SGD on W2 (work-items 0..hidden-1) and b2 (work-item hidden)
const string kUpdateOutput=
   "__kernel void update_output(__global const float *h,__global const float *dy,\r\n"+
   "                            __global float *w2,__global float *b2,float rate,\r\n"+
   "                            int samples,int hidden)\r\n"+
   "{\r\n"+
   "   int j=get_global_id(0);\r\n"+
   "   float g=0;\r\n"+
   "   for(int n=0; n<samples; n++)\r\n"+
   "      g+=dy[n]*(j<hidden ? h[n*hidden+j] : 1.0f);\r\n"+
   "   if(j<hidden) w2[j]-=rate*g; else b2[0]-=rate*g;\r\n"+
   "}\r\n";
//--- SGD on W1 (rows 0..features-1) and b1 (row features)
const string kUpdateInput=
   "__kernel void update_input(__global const float *x,__global const float *dh,\r\n"+
   "                           __global float *w1,__global float *b1,float rate,\r\n"+
   "                           int samples,int features,int hidden)\r\n"+
   "{\r\n"+
   "   int d=get_global_id(0)/hidden, j=get_global_id(0)%hidden;\r\n"+
   "   float g=0;\r\n"+
   "   for(int n=0; n<samples; n++)\r\n"+
   "      g+=dh[n*hidden+j]*(d<features ? x[n*features+d] : 1.0f);\r\n"+
   "   if(d<features) w1[d*hidden+j]-=rate*g; else b1[j]-=rate*g;\r\n"+
   "}\r\n";

COpenCL  cl;
matrixf  features;     // SAMPLES x INPUTS
vectorf  targets;    // SAMPLES
matrixf  w1;         // INPUTS x HIDDEN
vectorf  b1;         // HIDDEN
vectorf  w2;         // HIDDEN
vectorf  b2;         // 1
//+------------------------------------------------------------------+
//| A uniform value in [-1, 1)                                       |
//+------------------------------------------------------------------+
double Uniform()
  {
   return(MathRand()/32768.0*2.0-1.0);
  }
//+------------------------------------------------------------------+
//| The data, y = x0*x1 + 0.5*x2 - 0.25*x3, and the initial weights   |
//+------------------------------------------------------------------+
void MakeData()
  {
   MathSrand(Seed);
   features.Resize(SAMPLES,INPUTS);
   targets.Resize(SAMPLES);
   for(int n=0; n<SAMPLES; n++)
     {
      for(int d=0; d<INPUTS; d++)
         features[n][d]=(float)Uniform();
      targets[n]=(float)(features[n][0]*features[n][1]+0.5*features[n][2]-0.25*features[n][3]);
     }
   w1.Resize(INPUTS,HIDDEN);
   b1.Resize(HIDDEN);
   w2.Resize(HIDDEN);
   b2.Resize(1);
   for(int d=0; d<INPUTS; d++)
      for(int j=0; j<HIDDEN; j++)
         w1[d][j]=(float)(0.5*Uniform());
   for(int j=0; j<HIDDEN; j++)
     {
      b1[j]=0;
      w2[j]=(float)(0.5*Uniform());
     }
   b2[0]=0;
  }
//+------------------------------------------------------------------+
//| Context, program, kernels, buffers and the arguments that stay   |
//+------------------------------------------------------------------+
bool InitOpenCL()
  {
   if(!cl.Initialize(kForwardHidden+kForwardOutput+kBackward+kUpdateOutput+kUpdateInput,true))
      return(false);
   if(!cl.SetKernelsCount(5) || !cl.SetBuffersCount(11))
      return(false);
   if(!cl.KernelCreate(K_HIDDEN,"forward_hidden") || !cl.KernelCreate(K_OUTPUT,"forward_output") ||
      !cl.KernelCreate(K_BACK,"backward_hidden") || !cl.KernelCreate(K_UPDATE_OUT,"update_output") ||
      !cl.KernelCreate(K_UPDATE_IN,"update_input"))
      return(false);
   if(!cl.BufferFromMatrix(B_X,features,CL_MEM_READ_ONLY) || !cl.BufferFromVector(B_T,targets,CL_MEM_READ_ONLY) ||
      !cl.BufferFromMatrix(B_W1,w1,CL_MEM_READ_WRITE) || !cl.BufferFromVector(B_B1,b1,CL_MEM_READ_WRITE) ||
      !cl.BufferFromVector(B_W2,w2,CL_MEM_READ_WRITE) || !cl.BufferFromVector(B_B2,b2,CL_MEM_READ_WRITE))
      return(false);
   if(!cl.BufferCreate(B_H,SAMPLES*HIDDEN*sizeof(float),CL_MEM_READ_WRITE) ||
      !cl.BufferCreate(B_Y,SAMPLES*sizeof(float),CL_MEM_READ_WRITE) ||
      !cl.BufferCreate(B_DY,SAMPLES*sizeof(float),CL_MEM_READ_WRITE) ||
      !cl.BufferCreate(B_DH,SAMPLES*HIDDEN*sizeof(float),CL_MEM_READ_WRITE) ||
      !cl.BufferCreate(B_ERR,SAMPLES*sizeof(float),CL_MEM_READ_WRITE))
      return(false);
//--- literals and expressions go by value, as with the built-in CLSetKernelArg
   return(cl.SetArgumentBuffer(K_HIDDEN,0,B_X) && cl.SetArgumentBuffer(K_HIDDEN,1,B_W1) &&
          cl.SetArgumentBuffer(K_HIDDEN,2,B_B1) && cl.SetArgumentBuffer(K_HIDDEN,3,B_H) &&
          cl.SetArgument(K_HIDDEN,4,INPUTS) && cl.SetArgument(K_HIDDEN,5,HIDDEN) &&
          cl.SetArgumentBuffer(K_OUTPUT,0,B_H) && cl.SetArgumentBuffer(K_OUTPUT,1,B_W2) &&
          cl.SetArgumentBuffer(K_OUTPUT,2,B_B2) && cl.SetArgumentBuffer(K_OUTPUT,3,B_T) &&
          cl.SetArgumentBuffer(K_OUTPUT,4,B_Y) && cl.SetArgumentBuffer(K_OUTPUT,5,B_DY) &&
          cl.SetArgumentBuffer(K_OUTPUT,6,B_ERR) && cl.SetArgument(K_OUTPUT,7,HIDDEN) &&
          cl.SetArgument(K_OUTPUT,8,(float)(1.0/SAMPLES)) &&
          cl.SetArgumentBuffer(K_BACK,0,B_DY) && cl.SetArgumentBuffer(K_BACK,1,B_W2) &&
          cl.SetArgumentBuffer(K_BACK,2,B_H) && cl.SetArgumentBuffer(K_BACK,3,B_DH) &&
          cl.SetArgument(K_BACK,4,HIDDEN) &&
          cl.SetArgumentBuffer(K_UPDATE_OUT,0,B_H) && cl.SetArgumentBuffer(K_UPDATE_OUT,1,B_DY) &&
          cl.SetArgumentBuffer(K_UPDATE_OUT,2,B_W2) && cl.SetArgumentBuffer(K_UPDATE_OUT,3,B_B2) &&
          cl.SetArgument(K_UPDATE_OUT,4,(float)LearningRate) && cl.SetArgument(K_UPDATE_OUT,5,SAMPLES) &&
          cl.SetArgument(K_UPDATE_OUT,6,HIDDEN) &&
          cl.SetArgumentBuffer(K_UPDATE_IN,0,B_X) && cl.SetArgumentBuffer(K_UPDATE_IN,1,B_DH) &&
          cl.SetArgumentBuffer(K_UPDATE_IN,2,B_W1) && cl.SetArgumentBuffer(K_UPDATE_IN,3,B_B1) &&
          cl.SetArgument(K_UPDATE_IN,4,(float)LearningRate) && cl.SetArgument(K_UPDATE_IN,5,SAMPLES) &&
          cl.SetArgument(K_UPDATE_IN,6,INPUTS) && cl.SetArgument(K_UPDATE_IN,7,HIDDEN));
  }
//+------------------------------------------------------------------+
//| One step: forward, loss, backward, update                        |
//+------------------------------------------------------------------+
bool Step()
  {
   uint offset[1]={0};
   uint per_unit[1]={SAMPLES*HIDDEN};
   uint per_sample[1]={SAMPLES};
   uint per_output[1]={HIDDEN+1};
   uint per_input[1]={(INPUTS+1)*HIDDEN};
   return(cl.Execute(K_HIDDEN,1,offset,per_unit) && cl.Execute(K_OUTPUT,1,offset,per_sample) &&
          cl.Execute(K_BACK,1,offset,per_unit) && cl.Execute(K_UPDATE_OUT,1,offset,per_output) &&
          cl.Execute(K_UPDATE_IN,1,offset,per_input));
  }
//+------------------------------------------------------------------+
//| The mean squared error of the step's forward pass                |
//+------------------------------------------------------------------+
bool Loss(double &loss)
  {
   float errors[];
   if(ArrayResize(errors,SAMPLES)!=SAMPLES || !cl.BufferRead(B_ERR,errors,0,0,SAMPLES))
      return(false);
   loss=0;
   for(int n=0; n<SAMPLES; n++)
      loss+=errors[n];
   loss/=SAMPLES;
   return(true);
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   MakeData();
   if(!InitOpenCL())
     {
      Print("MLP: OpenCL set-up failed");
      cl.Shutdown();
      return;
     }
   double loss=0;
   for(int step=0; step<Steps; step++)
     {
      if(!Step())
        {
         Print("MLP: step ",step," failed");
         break;
        }
      if((step%ReportEvery==0 || step==Steps-1) && Loss(loss))
         Print("step ",step,": loss = ",DoubleToString(loss,8));
     }
//--- the trained weights back as a matrix and vectors
   matrixf trained;
   vectorf predictions;
   if(cl.BufferToMatrix(B_W1,trained,INPUTS,HIDDEN) && cl.BufferToVector(B_Y,predictions,SAMPLES))
      Print("w1[0][0] = ",DoubleToString(trained[0][0],6),"; y[0] = ",DoubleToString(predictions[0],6),
            "; t[0] = ",DoubleToString(targets[0],6));
   cl.Shutdown();
  }
//+------------------------------------------------------------------+
